#if canImport(Glibc)
  import Glibc
#endif

/// gestured-touch's one EINTR loop (it does not link the daemon's runtime, whose
/// `retryOnInterrupt` plays this part there): calls `call` again while it fails with EINTR,
/// in the -1-and-errno convention of read(2) and write(2), and returns its last result.
func retryingOnInterrupt<Result: SignedInteger>(_ call: () -> Result) -> Result {
  while true {
    let result = call()
    if result >= 0 || errno != EINTR { return result }
  }
}
