#if canImport(Glibc)
  import Glibc
  import GestureCore
  import Testing

  @testable import TouchScript

  /// evemu's own reader (libevemu.so.3 from Debian's libevemu3, which evemu-tools pulls in),
  /// loaded at run time so the project does not depend on it. The test is skipped where it
  /// is not installed.
  struct Libevemu {
    typealias New = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    typealias Delete = @convention(c) (OpaquePointer?) -> Void
    typealias Read = @convention(c) (OpaquePointer?, UnsafeMutablePointer<FILE>?) -> Int32
    typealias Name = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    typealias HasEvent = @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    typealias HasProperty = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias AxisValue = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias Identity = @convention(c) (OpaquePointer?) -> UInt32
    typealias ReadEvent =
      @convention(c) (UnsafeMutablePointer<FILE>?, UnsafeMutableRawPointer?) -> Int32

    let new: New
    let delete: Delete
    let read: Read
    let name: Name
    let hasEvent: HasEvent
    let hasProperty: HasProperty
    let minimum: AxisValue
    let maximum: AxisValue
    let resolution: AxisValue
    let vendor: Identity
    let product: Identity
    let readEvent: ReadEvent

    static let shared: Libevemu? = {
      guard let handle = dlopen("libevemu.so.3", RTLD_NOW) else { return nil }
      func symbol<T>(_ name: String, _ type: T.Type) -> T? {
        guard let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: type)
      }
      guard let new = symbol("evemu_new", New.self),
        let delete = symbol("evemu_delete", Delete.self),
        let read = symbol("evemu_read", Read.self), let name = symbol("evemu_get_name", Name.self),
        let hasEvent = symbol("evemu_has_event", HasEvent.self),
        let hasProperty = symbol("evemu_has_prop", HasProperty.self),
        let minimum = symbol("evemu_get_abs_minimum", AxisValue.self),
        let maximum = symbol("evemu_get_abs_maximum", AxisValue.self),
        let resolution = symbol("evemu_get_abs_resolution", AxisValue.self),
        let vendor = symbol("evemu_get_id_vendor", Identity.self),
        let product = symbol("evemu_get_id_product", Identity.self),
        let readEvent = symbol("evemu_read_event", ReadEvent.self)
      else { return nil }
      return Libevemu(
        new: new, delete: delete, read: read, name: name, hasEvent: hasEvent,
        hasProperty: hasProperty,
        minimum: minimum, maximum: maximum, resolution: resolution, vendor: vendor,
        product: product,
        readEvent: readEvent)
    }()
  }

  /// Writes `text` to a temporary file and opens it for reading.
  func temporaryFile(_ text: String) -> UnsafeMutablePointer<FILE>? {
    guard let file = tmpfile() else { return nil }
    fputs(text, file)
    rewind(file)
    return file
  }

  @Suite("evemu's own reader")
  struct LibevemuTests {
    @Test(
      "libevemu reads the description and every event as written",
      .enabled(if: Libevemu.shared != nil, "libevemu.so.3 is not installed"),
      arguments: PanelKind.allCases)
    func libevemuReads(kind: PanelKind) throws {
      let evemu = try #require(Libevemu.shared)
      let script = try TouchScript.parse(
        """
        panel \(kind.rawValue) name="Scripted \(kind.rawValue)" vendor=0x222a product=0x0001 x=0..4095 y=0..2303 resolution=16
        jitter 0.3mm
        tap at=0ms x=0.5 y=0.5
        swipe at=500ms from=0.2,0.8 by=0,-60mm
        """, file: "\(kind.rawValue).touch")
      let file = try #require(temporaryFile(script.evemuText()))
      defer { fclose(file) }
      let device = try #require(evemu.new(nil))
      defer { evemu.delete(device) }
      #expect(evemu.read(device, file) > 0)
      #expect(String(cString: try #require(evemu.name(device))) == "Scripted \(kind.rawValue)")
      #expect(evemu.vendor(device) == 0x222a && evemu.product(device) == 0x0001)
      #expect(evemu.hasProperty(device, Int32(InputProperty.direct)) != 0)
      for (code, axis) in script.device.axes {
        #expect(evemu.hasEvent(device, Int32(EventType.abs), Int32(code)) != 0)
        #expect(evemu.minimum(device, Int32(code)) == axis.minimum)
        #expect(evemu.maximum(device, Int32(code)) == axis.maximum)
        #expect(evemu.resolution(device, Int32(code)) == axis.resolution)
      }
      for key in script.device.keys {
        #expect(evemu.hasEvent(device, Int32(EventType.key), Int32(key)) != 0)
      }
      #expect(evemu.hasEvent(device, Int32(EventType.key), Int32(KeyCode.btnToolPen)) == 0)

      // struct input_event on 64-bit Linux: timeval (2 × 8 bytes), type, code (2 bytes each),
      // value (4 bytes).
      rewind(file)
      var read: [RawEvent] = []
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: 24, alignment: 8)
      defer { buffer.deallocate() }
      while evemu.readEvent(file, buffer) > 0 {
        let seconds = buffer.load(as: Int64.self)
        let micros = buffer.load(fromByteOffset: 8, as: Int64.self)
        read.append(
          RawEvent(
            time: Timestamp(seconds: seconds, microseconds: micros),
            type: buffer.load(fromByteOffset: 16, as: UInt16.self),
            code: buffer.load(fromByteOffset: 18, as: UInt16.self),
            value: buffer.load(fromByteOffset: 20, as: Int32.self)))
      }
      #expect(read.count == script.events.count)
      #expect(read == script.events)
    }
  }
#endif
