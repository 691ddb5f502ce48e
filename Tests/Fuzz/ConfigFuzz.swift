// libFuzzer target: bytes as a YAML config, through the loader and validator, with every
// diagnostic formatted as `gestured check` prints it.
import GesturedConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let result = ConfigLoader.parse(bytes: bytes, file: "fuzz.yaml")
  for diagnostic in result.diagnostics { _ = diagnostic.description }
  return 0
}
