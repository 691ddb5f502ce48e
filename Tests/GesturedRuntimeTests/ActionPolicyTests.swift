import GestureCore
import GesturedSystem
import Glibc
import Testing

@testable import GesturedRuntime

/// The action policy on virtual time: no process, no descriptor, no sleep. `PolicyHarness`
/// plays the runner, with pretend processes that exit when a test says so.
@Suite("Action policy")
struct ActionPolicyTests {
  // MARK: Cooldown

  @Test func aFiringWithinTheCooldownOfTheLastAcceptedOneIsDropped() {
    var harness = PolicyHarness()
    let first = harness.now
    #expect(harness.fire(request("true", cooldown: 300_000, firedAt: first)) == .starting(1))
    harness.exit(harness.pid(1))
    #expect(harness.fire(request("true", cooldown: 300_000, firedAt: first + 299_999)) == .droppedCooldown)
    #expect(harness.log.contains("<6>[tap] firing dropped: 299 ms after the previous one, within its 300 ms cooldown"))
    // A dropped firing does not extend the cooldown: it counts from the last accepted one.
    #expect(harness.fire(request("true", cooldown: 300_000, firedAt: first + 300_000)) == .starting(2))
    // Other bindings have their own cooldown.
    #expect(harness.fire(request("true", key: "lobby#1", cooldown: 300_000, firedAt: first + 300_001)) == .starting(3))

    // A queued firing is accepted too: the next one counts from it, not from the last start.
    let base = first + 10_000_000
    let dispositions = [0, 400_000, 600_000, 700_000].map { offset in
      harness.fire(request("true", key: "lobby#4", cooldown: 300_000, firedAt: base + Microseconds(offset)))
    }
    #expect(dispositions == [.starting(4), .queued, .droppedCooldown, .coalesced(steps: 2)])
    #expect(harness.log.contains { $0.hasPrefix("<6>[tap] firing dropped: 200 ms after the previous one") })
  }

  @Test func theSpawnLatencyLineIsMadeOnlyForALogThatShowsDebugLines() {
    var harness = PolicyHarness()
    let firedAt = harness.now
    harness.now = harness.now + 2_500
    #expect(harness.fire(request("true", firedAt: firedAt)) == .starting(1))
    #expect(harness.log.contains("<7>[tap] pid \(harness.pid(1)) spawned 2500 µs after its firing's event"))

    var quiet = PolicyHarness()
    quiet.policy.logsDebug = false
    quiet.now = quiet.now + 2_500
    #expect(quiet.fire(request("true", firedAt: firedAt)) == .starting(1))
    #expect(quiet.log.contains { $0.hasPrefix("<6>[tap] started pid") })
    #expect(!quiet.log.contains { $0.hasPrefix("<7>") })
  }

  /// A label and command are logged on one line, escaped, the same whether the binding's
  /// table made their text once (`logText`) or the policy makes it at the firing.
  @Test func labelAndCommandAreLoggedOnOneLineEscapedWhoeverMadeTheirText() {
    let label = "lobby/\u{1B}[31mred\nx"
    let command = "echo\ta\u{85}b"
    var madeOnce = request(command, label: label)
    madeOnce.logText = ActionPolicy.LogText(label: label, command: command)
    for request in [request(command, label: label), madeOnce] {
      var harness = PolicyHarness()
      harness.policy.logsDebug = false
      #expect(harness.fire(request) == .starting(1))
      let pid = harness.pid(1)
      #expect(harness.log.last == "<6>[lobby/\\x1b[31mred\\nx] started pid \(pid): echo\\ta\\u{85}b")
      harness.exit(pid)
      #expect(harness.log.last == "<6>[lobby/\\x1b[31mred\\nx] pid \(pid) exited with status 0 after 0 ms")
      #expect(harness.starts.map(\.label) == ["lobby/\\x1b[31mred\\nx"])
    }
  }

  @Test func stepsAndEndsHaveNoCooldown() {
    var harness = PolicyHarness()
    #expect(harness.fire(step(1, of: "pan", stream: "/dev/input/event3#1/pan")) == .starting(1))
    harness.exit(harness.pid(1))
    #expect(harness.fire(step(2, of: "pan", stream: "/dev/input/event3#1/pan")) == .starting(2))
    harness.exit(harness.pid(2))
    #expect(harness.fire(step(0, of: "pan", stream: "/dev/input/event3#1/pan", end: true)) == .starting(3))
  }

  // MARK: Lanes and coalescing

  @Test func aFiringWhileTheBindingRunsWaitsAndLaterOnesCoalesceIntoIt() {
    var harness = PolicyHarness()
    let dispositions = (1...4).map { index in
      harness.fire(
        request(
          "run", key: "lobby#2", firedAt: harness.now + Microseconds(index), environment: ["X": "\(index)"]))
    }
    #expect(dispositions == [.starting(1), .queued, .coalesced(steps: 2), .coalesced(steps: 3)])
    #expect(harness.fire(request("echo other", key: "lobby#3", label: "other")) == .starting(2), "another binding runs")
    #expect(harness.policy.waitingCount == 1, "one waiting run per binding")
    let pid = harness.pid(1)
    #expect(harness.log.contains("<6>[tap] firing queued: its previous run (pid \(pid)) is still running"))
    #expect(harness.log.contains("<6>[tap] firing coalesced into its waiting run (now 2 firings)"))
    #expect(harness.log.contains("<6>[tap] firing coalesced into its waiting run (now 3 firings)"))

    harness.advance(by: 250_000)
    harness.exit(pid)
    // The newest firing's values, counting all three; every firing is accounted for.
    let next = harness.starts.last
    #expect(next?.request.environment["X"] == "4")
    #expect(next?.request.environment["GESTURED_STEPS"] == "3")
    #expect(harness.log.contains("<6>[tap] started pid \(harness.pid(3)) after waiting 250 ms for 3 firings: run"))
    harness.exit(harness.pid(3))
    harness.exit(harness.pid(2))
    #expect(harness.policy.isIdle)
    // Once both ended, the binding starts at once again.
    #expect(harness.fire(request("true", key: "lobby#2", firedAt: harness.now + 1_000)) == .starting(4))
  }

  @Test func stepsOfAStreamRunOneAtATimeInOrderCoalescingPerBindingWithTheEndLast() {
    var harness = PolicyHarness()
    let dispositions = [
      step(1, of: "out"), step(2, of: "out"), step(3, of: "out"), step(1, of: "in"), step(2, of: "in"),
      step(4, of: "out"), step(0, of: "out", end: true, steps: 4), step(0, of: "in", end: true, steps: 2),
    ].map { harness.fire($0) }
    #expect(
      dispositions == [
        .starting(1), .queued, .coalesced(steps: 2), .queued, .coalesced(steps: 2), .queued, .queued, .queued,
      ], "an end is never merged, not even with the other binding's end")
    #expect(harness.log.contains { $0.hasPrefix("<6>[tap] step queued: the run before it in its stream (pid ") })
    #expect(harness.log.contains("<6>[tap] step coalesced into its waiting run (now 2 steps)"))
    #expect(harness.log.contains { $0.hasPrefix("<6>[tap] end queued: the run before it in its stream (pid ") })
    // One at a time: each starts only when the one before it is reaped.
    while let run = harness.runningPIDs.first {
      #expect(harness.runningPIDs.count == 1)
      harness.exit(run)
    }
    let runs = harness.starts.map { start in
      let variables = start.request.environment
      return "\(variables["KEY"]!) \(variables["PHASE"]!) \(variables["N"]!) \(variables["GESTURED_STEPS"] ?? "1")"
    }
    #expect(runs == ["out step 1 1", "out step 3 2", "in step 2 2", "out step 4 1", "out end 0 4", "in end 0 2"])
  }

  @Test func streamsAreIndependent() {
    var harness = PolicyHarness()
    #expect(harness.fire(step(1, of: "pan", stream: "/dev/input/event3#1/pan")) == .starting(1))
    #expect(harness.fire(step(1, of: "pan", stream: "/dev/input/event4#1/pan")) == .starting(2))
  }

  @Test func aStreamKeepsAtMost64WaitingStepsMergingTheRestIntoTheirBindingsNewest() {
    var harness = PolicyHarness()
    // Two bindings alternating: consecutive steps never share a binding, so only the bound
    // merges them.
    var dispositions = [harness.fire(step(0, of: "a"))]
    for index in 1...200 { dispositions.append(harness.fire(step(index, of: index % 2 == 0 ? "a" : "b"))) }
    #expect(dispositions[1...64].allSatisfy { $0 == .queued })
    #expect(dispositions[65...].allSatisfy { if case .coalesced = $0 { true } else { false } })
    #expect(harness.policy.waitingCount == 64)
    #expect(
      harness.log.contains {
        $0.hasPrefix("<5>[tap] step merged into its newest waiting run (now ")
          && $0.hasSuffix("): stream /dev/input/event3#1/pinch has 64 waiting runs, the most kept")
      })
    harness.exitAll()
    let counts = harness.starts.dropFirst().map { Int($0.request.environment["GESTURED_STEPS"] ?? "1")! }
    #expect(counts.count == 64)
    #expect(counts.reduce(0, +) == 200, "no step is lost")
  }

  @Test func pastTheGlobalBoundStepsAndEndsMergeIntoTheirBindingsNewestWaitingRunAnywhere() {
    var harness = PolicyHarness()
    harness.policy.maximumWaitingRuns = 3
    func stream(_ name: String) -> String { "/dev/input/event3#\(name)/pan" }
    let dispositions = [
      step(1, of: "hold", stream: stream("a")), step(2, of: "x", stream: stream("a")),
      step(1, of: "hold", stream: stream("b")), step(2, of: "y", stream: stream("b")),
      step(0, of: "x", stream: stream("b"), end: true, steps: 1),
      step(1, of: "hold", stream: stream("c")),
      step(2, of: "x", stream: stream("c")),
      step(0, of: "x", stream: stream("c"), end: true, steps: 2),
      step(3, of: "z", stream: stream("c")),
    ].map { harness.fire($0) }
    #expect(
      [dispositions[1], dispositions[3], dispositions[4]] == [.queued, .queued, .queued]
        && Array(dispositions[6...]) == [.coalesced(steps: 2), .coalesced(steps: 3), .queued],
      "\(dispositions)")
    #expect(
      harness.log.contains(
        "<4>[tap] step merged into its newest waiting run in stream \(stream("a")) (now 2 steps): "
          + "3 runs are waiting, the most kept"))
    #expect(
      harness.log.contains {
        $0.hasPrefix("<4>[tap] end merged into its newest waiting run in stream \(stream("b")) (now 3 ends)")
      })
    harness.exitAll()
    let runs = harness.starts.compactMap { start -> String? in
      let variables = start.request.environment
      guard variables["KEY"] != "hold" else { return nil }
      return "\(variables["KEY"]!) \(variables["PHASE"]!) \(variables["N"]!) \(variables["GESTURED_STEPS"] ?? "1")"
    }
    #expect(Set(runs) == ["x step 2 2", "y step 2 1", "x end 0 3", "z step 3 1"])
  }

  // MARK: Room

  @Test func atMostSixteenActionsRunAtOnceAndTheRestWaitForRoomInOrder() {
    var harness = PolicyHarness()
    var requests = (0..<16).map { index in request("sleep", key: "binding#\(index)") }
    requests.append(request("first", key: "binding#16", label: "first"))
    requests.append(request("first", key: "binding#16", label: "first"))
    var second = step(1, of: "s")
    second.label = "second"
    requests.append(second)
    let dispositions = requests.map { harness.fire($0) }
    #expect(dispositions.prefix(16) == ArraySlice((1...16).map { .starting($0) }))
    #expect(Array(dispositions.dropFirst(16)) == [.queued, .coalesced(steps: 2), .queued])
    #expect(harness.policy.runningCount == 16)
    #expect(harness.policy.waitingCount == 2)
    #expect(harness.log.contains("<4>[first] firing queued: 16 actions are running, the most allowed at once"))
    #expect(harness.log.contains("<4>[second] step queued: 16 actions are running, the most allowed at once"))
    // They start as room frees, first come first served.
    harness.exit(harness.pid(1))
    #expect(harness.starts.last?.label == "first")
    #expect(harness.starts.last?.request.environment["GESTURED_STEPS"] == "2")
    #expect(harness.policy.waitingCount == 1)
    harness.exit(harness.pid(2))
    #expect(harness.starts.last?.label == "second")
    #expect(harness.policy.runningCount == 16)
  }

  @Test func aRunThatCannotStartIsLoggedAndTheNextOneStarts() {
    var harness = PolicyHarness()
    harness.refuse = { $0.user == "nobody" ? "user: nobody needs gestured to run as root (it runs as uid 1000)" : nil }
    var refused = step(2, of: "b")
    refused.user = "nobody"
    let dispositions = [step(1, of: "a"), refused, step(3, of: "c")].map { harness.fire($0) }
    #expect(dispositions == [.starting(1), .queued, .queued])
    harness.exit(harness.pid(1))
    #expect(
      harness.log.contains(
        "<3>[tap] cannot start its action: user: nobody needs gestured to run as root (it runs as uid 1000)"))
    #expect(harness.starts.last?.request.environment["N"] == "3")
    #expect(harness.policy.runningCount == 1)
    #expect(harness.policy.waitingCount == 0)
    // A firing that cannot start at once takes no slot either.
    #expect(harness.fire(request("true", key: "lobby#9", user: "nobody")) == .starting(4))
    #expect(harness.pid(of: 4) == nil)
    #expect(harness.policy.runningCount == 1)
  }

  @Test func stoppingDropsWaitingRunsAndSaysHowMany() {
    var harness = PolicyHarness()
    let dispositions = [
      request("sleep", key: "lobby#5"), request("true", key: "lobby#5"), step(1, of: "a"), step(2, of: "b"),
      step(3, of: "a"),
    ].map { harness.fire($0) }
    #expect(dispositions == [.starting(1), .queued, .starting(2), .queued, .queued])
    #expect(harness.dropWaiting() == 3)
    #expect(harness.log.last == "<5>stopping: 3 waiting action runs dropped")
    #expect(harness.policy.waitingCount == 0)
    harness.exitAll()
    #expect(harness.starts.count == 2, "the running ones finished, nothing else started")
    #expect(harness.dropWaiting() == 0)
  }

  // MARK: Timeouts

  @Test func aTimeoutSendsSIGTERMToTheProcessGroupAndTheExitSaysSo() {
    var harness = PolicyHarness()
    _ = harness.fire(request("sleep 30", timeout: 300_000))
    let pid = harness.pid(1)
    #expect(harness.timer == harness.now + 300_000)
    harness.advance(by: 299_999)
    #expect(harness.signals.isEmpty)
    harness.advance(by: 1)
    #expect(harness.signals == [PolicyHarness.Signal(processGroup: pid, signal: SIGTERM)])
    #expect(harness.log.contains("<4>[tap] timed out after 300 ms: SIGTERM to process group \(pid)"))
    harness.advance(by: 10_000)
    harness.exit(pid, status: .signalled(SIGTERM))
    // What is left of its group gets SIGKILL too, and only then is the shell reaped.
    harness.advance(by: 1_990_000)
    #expect(harness.signals.last == PolicyHarness.Signal(processGroup: pid, signal: SIGKILL))
    #expect(
      harness.log.last
        == "<4>[tap] pid \(pid) failed: killed by signal 15 (SIGTERM) after 2.3 s (timed out after 300 ms)")
    #expect(harness.timer == nil, "nothing is due any more")
  }

  @Test func aShellIgnoringSIGTERMIsKilledTwoSecondsLaterAndReapedOnlyThen() {
    var harness = PolicyHarness()
    _ = harness.fire(request("trap '' TERM; sleep 30", timeout: 300_000))
    let pid = harness.pid(1)
    harness.advance(by: 300_000)
    // The shell exits on SIGTERM but its group lives on: the zombie is kept until SIGKILL,
    // so that the group's id cannot be reused meanwhile.
    harness.exit(pid, status: .signalled(SIGTERM))
    #expect(harness.stoppedWatching == [1])
    #expect(harness.reaps.isEmpty)
    #expect(harness.policy.runningCount == 1)
    harness.advance(by: 1_999_999)
    #expect(harness.signals.count == 1)
    harness.advance(by: 1)
    #expect(harness.signals.last == PolicyHarness.Signal(processGroup: pid, signal: SIGKILL))
    #expect(harness.log.contains("<4>[tap] 2 s after SIGTERM: SIGKILL to process group \(pid)"))
    #expect(harness.reaps == [1])
    #expect(harness.policy.isIdle)
  }

  @Test func aShellStillRunningAtSIGKILLIsReapedWhenItExits() {
    var harness = PolicyHarness()
    _ = harness.fire(request("sleep 30", timeout: 1_000_000))
    let pid = harness.pid(1)
    harness.advance(by: 3_000_000)
    #expect(harness.signals.map(\.signal) == [SIGTERM, SIGKILL])
    #expect(harness.reaps.isEmpty)
    harness.exit(pid, status: .signalled(SIGKILL))
    #expect(harness.log.last?.hasPrefix("<4>[tap] pid \(pid) failed: killed by signal 9 (SIGKILL) after 3 s") == true)
    #expect(harness.timer == nil)
  }

  @Test func anActionFinishingInTimeIsNotKilled() {
    var harness = PolicyHarness()
    _ = harness.fire(request("sleep 0.2", timeout: 2_000_000))
    harness.advance(by: 200_000)
    harness.exit(harness.pid(1))
    #expect(harness.timer == nil, "the timer is disarmed")
    harness.advance(by: 10_000_000)
    #expect(harness.signals.isEmpty)
    #expect(harness.log.last == "<6>[tap] pid \(harness.pid(1)) exited with status 0 after 200 ms")
  }

  @Test func actionsRunningTogetherEachTimeOutOnTheOneTimerArmedForTheEarliest() {
    var harness = PolicyHarness()
    // The 1 s one is started first but is due last.
    _ = harness.fire(request("sleep 30", key: "lobby#1", label: "slow", timeout: 1_000_000))
    let start = harness.now
    #expect(harness.timer == start + 1_000_000)
    _ = harness.fire(request("sleep 30", key: "lobby#2", label: "fast", timeout: 300_000))
    #expect(harness.timer == start + 300_000)
    _ = harness.fire(request("sleep 0.1", key: "lobby#3", label: "quick", timeout: 600_000))
    harness.advance(by: 100_000)
    harness.exit(harness.pid(3))
    harness.advance(by: 2_000_000)
    let fast = harness.log.firstIndex { $0.hasPrefix("<4>[fast] timed out after 300 ms") }
    let slow = harness.log.firstIndex { $0.hasPrefix("<4>[slow] timed out after 1 s") }
    #expect(fast != nil && slow != nil && fast! < slow!)
    #expect(!harness.log.contains { $0.hasPrefix("<4>[quick] timed out") }, "it ended before its timeout")
    #expect(harness.timer == start + 2_300_000, "the fast one's SIGKILL stage")
  }

  @Test func noTimeoutMeansNoTimer() {
    var harness = PolicyHarness()
    _ = harness.fire(request("sleep 30", timeout: 0))
    _ = harness.fire(request("sleep 30", key: "lobby#1", timeout: .max))
    #expect(harness.timer == nil)
  }

  // MARK: Output

  @Test func aFloodOfOutputIsCutToTheRateAndReadingPausesUntilTheSecondIsOver() {
    var harness = PolicyHarness()
    let output = ActionPolicy.OutputID(key: "lobby#0", label: "tap")
    var logged = 0
    let start = harness.now
    // 150 lines in one read.
    harness.perform(harness.policy.outputRead(output, bytes: 150 * 5, at: start))
    for index in 0..<150 {
      if let action = harness.policy.outputLine(output, "l\(index)", cut: false, level: .info) {
        harness.perform([action])
        logged += 1
      }
    }
    #expect(logged == ActionPolicy.outputLinesPerSecond)
    harness.perform(harness.policy.outputReadEnded(output, at: start))
    #expect(harness.paused == [output])
    #expect(harness.policy.isPaused(output))
    #expect(harness.timer == start + 1_000_000)
    harness.advance(by: 1_000_000)
    #expect(harness.paused.isEmpty)
    #expect(
      harness.log.last
        == "<4>[tap] output past 100 lines or 64 KiB a second: 50 lines (250 bytes) not logged, its output not read for 1 s"
    )
    // A new second: lines are logged again.
    harness.perform(harness.policy.outputRead(output, bytes: 3, at: harness.now))
    #expect(harness.policy.outputLine(output, "ok", cut: true, level: .notice) != nil)
    harness.perform([harness.policy.outputLine(output, "ok", cut: true, level: .notice)!])
    #expect(harness.log.last == "<5>[tap] ok [… cut at 4096 bytes]")
  }

  @Test func sixtyFourKiBInASecondPausesReadingWithoutLosingALine() {
    var harness = PolicyHarness()
    let output = ActionPolicy.OutputID(key: "lobby#0", label: "tap")
    harness.perform(harness.policy.outputRead(output, bytes: 40 * 1024, at: harness.now))
    #expect(harness.policy.outputReadEnded(output, at: harness.now).isEmpty)
    harness.advance(by: 500_000)
    harness.perform(harness.policy.outputRead(output, bytes: 24 * 1024, at: harness.now))
    harness.perform(harness.policy.outputReadEnded(output, at: harness.now))
    #expect(harness.paused == [output])
    #expect(harness.timer == harness.now + 500_000, "until the second that began at the first read is over")
    harness.advance(by: 500_000)
    #expect(
      harness.log.last
        == "<4>[tap] output past 100 lines or 64 KiB a second: 0 lines (0 bytes) not logged, its output not read for 500 ms"
    )
  }

  @Test func closedOutputIsForgottenWithItsPause() {
    var harness = PolicyHarness()
    let output = ActionPolicy.OutputID(key: "lobby#0", label: "tap")
    harness.perform(harness.policy.outputRead(output, bytes: 64 * 1024, at: harness.now))
    harness.perform(harness.policy.outputReadEnded(output, at: harness.now))
    #expect(harness.timer != nil)
    harness.perform(harness.policy.outputClosed(output))
    #expect(harness.timer == nil)
    #expect(!harness.policy.isPaused(output))
  }

  // MARK: Input

  @Test func inputFiringsAreWrittenAtOnceWithOnlyTheCooldown() {
    var harness = PolicyHarness()
    _ = harness.fire(request("sleep 30", key: "lobby#0"))
    var input = request("", key: "lobby#0", cooldown: 300_000, firedAt: harness.now + 1_000_000)
    input.kind = .input(PreparedInput(.wheel(1), label: "lobby/wheel"))
    #expect(harness.fire(input) == .writingInput, "a running command of the binding does not hold it back")
    #expect(harness.written.count == 1)
    input.firedAt = input.firedAt + 100_000
    #expect(harness.fire(input) == .droppedCooldown)
    var step = step(1, of: "wheel")
    step.kind = .input(PreparedInput(.wheel(1), label: "lobby/wheel"))
    #expect(harness.fire(step) == .writingInput)
    #expect(harness.fire(step) == .writingInput, "steps are never merged")
    #expect(harness.written.count == 3)
    #expect(harness.policy.waitingCount == 0)
  }

  // MARK: Formatting

  @Test func durationsReadAsOperatorsWriteThem() {
    #expect(ActionPolicy.duration(299_999) == "299 ms")
    #expect(ActionPolicy.duration(2_000_000) == "2 s")
    #expect(ActionPolicy.duration(1_250_000) == "1.25 s")
    #expect(ActionPolicy.duration(-1_500_000) == "-1.5 s")
    #expect(ActionPolicy.duration(0) == "0 ms")
    #expect(ActionPolicy.duration(1_005_000) == "1.005 s")
    #expect(ActionPolicy.duration(1_050_999) == "1.05 s")
    #expect(ActionPolicy.duration(12_340_000) == "12.34 s")
  }

  // MARK: Helpers

  func request(
    _ command: String, key: String = "lobby#0", label: String = "tap", timeout: Microseconds = 10_000_000,
    cooldown: Microseconds = 0, user: String? = nil, firedAt: Timestamp = PolicyHarness.start,
    environment: [String: String] = [:]
  ) -> ActionPolicy.Request {
    ActionPolicy.Request(
      key: key, label: label, command: command, environment: ActionEnvironment(variables: environment),
      timeout: timeout, cooldown: cooldown, user: user, firedAt: firedAt)
  }

  /// A step or end request of binding `key` in `stream`, numbered `step`.
  func step(
    _ step: Int, of key: String, stream: String = "/dev/input/event3#1/pinch", end: Bool = false, steps: Int? = nil
  ) -> ActionPolicy.Request {
    var variables = ["KEY": key, "PHASE": end ? "end" : "step", "N": String(step)]
    if let steps { variables["GESTURED_STEPS"] = String(steps) }
    var request = request("step", key: key, cooldown: 10_000_000, environment: variables)
    request.schedule = end ? .end(stream: stream) : .step(stream: stream)
    return request
  }
}

/// The runner's part, pretended: starts get pids at once (or fail when `refuse` says why),
/// a process exits when the test calls `exit`, and time moves only with `advance`, firing
/// the policy's timer on the way.
struct PolicyHarness {
  struct Signal: Equatable {
    var processGroup: pid_t
    var signal: Int32
  }

  struct Start {
    var run: ActionPolicy.RunID
    var pid: pid_t
    var request: ActionPolicy.Request
    var label: String
  }

  static let start = Timestamp(microseconds: 1_000_000_000)

  var policy = ActionPolicy()
  var now = PolicyHarness.start
  /// What the policy's timer is armed for.
  var timer: Timestamp?
  /// Lines as the journal gets them: "<priority>text".
  var log: [String] = []
  var starts: [Start] = []
  var signals: [Signal] = []
  var reaps: [ActionPolicy.RunID] = []
  var stoppedWatching: [ActionPolicy.RunID] = []
  var paused: Set<ActionPolicy.OutputID> = []
  var written: [ActionPolicy.Request] = []
  /// Why a start fails, nil to let it start.
  var refuse: (ActionPolicy.Request) -> String? = { _ in nil }
  /// How each exited run ended, for its reap.
  private var statuses: [ActionPolicy.RunID: ProcessStatus] = [:]
  private var nextPID: pid_t = 1000

  mutating func fire(_ request: ActionPolicy.Request) -> ActionPolicy.Disposition {
    let (disposition, actions) = policy.fire(request, at: now)
    perform(actions)
    return disposition
  }

  mutating func dropWaiting() -> Int {
    let (dropped, actions) = policy.dropWaitingRuns()
    perform(actions)
    return dropped
  }

  /// The pid of the `run`th run started.
  func pid(_ run: ActionPolicy.RunID) -> pid_t {
    starts.first { $0.run == run }!.pid
  }

  func pid(of run: ActionPolicy.RunID) -> pid_t? { starts.first { $0.run == run }?.pid }

  /// Started and not reaped, in the order they started.
  var runningPIDs: [pid_t] { starts.filter { policy.pid(of: $0.run) != nil }.map(\.pid) }

  /// The process `pid` exits with `status` now.
  mutating func exit(_ pid: pid_t, status: ProcessStatus = .exited(0)) {
    guard let run = starts.first(where: { $0.pid == pid })?.run else { return }
    statuses[run] = status
    perform(policy.exited(run, at: now))
  }

  /// Every running process exits, and those that start then, until none is left.
  mutating func exitAll() {
    while let pid = runningPIDs.first { exit(pid) }
  }

  mutating func advance(by microseconds: Microseconds) {
    let target = now + microseconds
    while let due = timer, due <= target {
      now = due
      timer = nil
      perform(policy.deadlineReached(at: now))
    }
    now = target
  }

  mutating func perform(_ actions: [ActionPolicy.Action]) {
    for action in actions {
      switch action {
      case .start(let run, let request, let label):
        if let reason = refuse(request) {
          perform(policy.startFailed(run, reason: reason, at: now))
        } else {
          nextPID += 1
          starts.append(Start(run: run, pid: nextPID, request: request, label: label))
          perform(policy.started(run, pid: nextPID, at: now))
        }
      case .signalGroup(let processGroup, let signal):
        signals.append(Signal(processGroup: processGroup, signal: signal))
      case .reap(let run):
        reaps.append(run)
        perform(policy.reaped(run, status: statuses[run] ?? .signalled(SIGKILL), at: now))
      case .stopWatchingExit(let run):
        stoppedWatching.append(run)
      case .log(let level, let message):
        log.append("<\(level.rawValue)>\(message.text)")
      case .pauseReading(let output):
        paused.insert(output)
      case .resumeReading(let output):
        paused.remove(output)
      case .armTimer(let time):
        timer = time
      case .writeInput(let request):
        written.append(request)
      }
    }
  }
}
