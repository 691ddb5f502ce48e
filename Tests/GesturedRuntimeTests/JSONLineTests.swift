import GestureCore
import Testing

@testable import GesturedRuntime

@Suite("JSON lines")
struct JSONLineTests {
  @Test func keysComeOutInTheOrderTheyWereAdded() {
    var json = JSONLine()
    json.add("b", 2)
    json.add("a", "x")
    json.addNull("c")
    #expect(json.line == #"{"b":2,"a":"x","c":null}"#)
  }

  @Test func anEmptyObjectIsTwoBraces() {
    #expect(JSONLine().line == "{}")
  }

  @Test func quotesBackslashesAndControlCharactersAreEscaped() {
    #expect(JSONLine.quoted(#"say "hi"\now"#) == #""say \"hi\"\\now""#)
    #expect(JSONLine.quoted("a\nb\rc\td") == #""a\nb\rc\td""#)
    #expect(JSONLine.quoted("\u{08}\u{0C}") == #""\b\f""#)
    #expect(JSONLine.quoted("\u{00}\u{01}\u{1F}") == #""\u0000\u0001\u001f""#)
  }

  @Test func nonASCIIIsKeptAsUTF8() {
    #expect(JSONLine.quoted("Écran tactile ✋ 触摸") == "\"Écran tactile ✋ 触摸\"")
    // U+2028 is legal in JSON strings as it is; DEL and C1 are escaped for terminals.
    #expect(JSONLine.quoted("\u{2028}") == "\"\u{2028}\"")
    #expect(JSONLine.quoted("\u{7F}\u{85}") == #""\u007f\u0085""#)
  }

  @Test func anAbsentStringIsNull() {
    var json = JSONLine()
    json.add("region", nil as String?)
    json.add("name", "main" as String?)
    #expect(json.line == #"{"region":null,"name":"main"}"#)
  }

  @Test func timesHaveExactlySixDecimals() {
    var json = JSONLine()
    json.add("time", Timestamp(microseconds: 1_500_000))
    json.add("t2", Timestamp(microseconds: 7))
    json.add("t3", Timestamp(microseconds: 1_299_660_593_141_195))
    #expect(json.line == #"{"time":1.500000,"t2":0.000007,"t3":1299660593.141195}"#)
  }

  @Test(
    "numbers are rounded to four decimals, without exponent notation",
    arguments: [
      (0.5, "0.5"), (1.0, "1.0"), (0.0, "0.0"), (0.123456, "0.1235"), (0.12344, "0.1234"),
      (0.00005, "0.0001"), (-0.00004, "0.0"), (-0.00001, "0.0"), (-12.5, "-12.5"),
      (1e-7, "0.0"), (123456.78901, "123456.789"), (1.25, "1.25"), (-45.00004, "-45.0"),
      (2.99996, "3.0"), (1e16, "10000000000000000.0"),
      (0.0012, "0.0012"), (-0.0012, "-0.0012"), (3.05, "3.05"), (0.1, "0.1"), (7.0105, "7.0105"),
    ])
  func fourDecimals(value: Double, text: String) {
    #expect(DecimalText.fourDecimals(value) == text)
  }

  @Test func numbersThatJSONCannotHoldAreNull() {
    var json = JSONLine()
    json.add("nan", rounded: .nan)
    json.add("inf", rounded: -.infinity)
    json.add("huge", rounded: 1e300)
    json.add("ok", rounded: 0.25)
    #expect(json.line == #"{"nan":null,"inf":null,"huge":null,"ok":0.25}"#)
  }
}
