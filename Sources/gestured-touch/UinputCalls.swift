import CEvdev

#if canImport(Glibc)
  import Glibc
#endif

/// libevdev's uinput functions (libevdev/libevdev-uinput.h).
///
/// The CEvdev module map includes only libevdev.h, so Swift cannot see these declarations.
/// Until CEvdev's shim.h also includes <libevdev/libevdev-uinput.h>, they are looked up by
/// name in libevdev, which this executable links already (libevdev_new and friends come
/// from the same library); the C signatures are restated here exactly. Once the header is
/// in the module map, each property becomes a direct call and this lookup goes away.
struct UinputCalls {
  /// `struct libevdev_uinput`: opaque.
  typealias Handle = OpaquePointer

  /// libevdev_uinput_create_from_device(const struct libevdev *, int uinput_fd,
  /// struct libevdev_uinput **) -> 0 or -errno.
  let createFromDevice:
    @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<Handle?>?) -> Int32
  /// libevdev_uinput_destroy(struct libevdev_uinput *).
  let destroy: @convention(c) (Handle?) -> Void
  /// libevdev_uinput_get_devnode(struct libevdev_uinput *) -> const char * (may be NULL).
  let devnode: @convention(c) (Handle?) -> UnsafePointer<CChar>?
  /// libevdev_uinput_write_event(const struct libevdev_uinput *, unsigned int type,
  /// unsigned int code, int value) -> 0 or -errno.
  let writeEvent: @convention(c) (Handle?, UInt32, UInt32, Int32) -> Int32

  /// LIBEVDEV_UINPUT_OPEN_MANAGED: libevdev opens /dev/uinput itself and closes it on destroy.
  static let openManaged: Int32 = -2

  /// Nil when the running libevdev lacks one of them (it has had all four since 1.0).
  static func load() -> UinputCalls? {
    guard let process = dlopen(nil, RTLD_NOW) else { return nil }
    func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(process, name) }
    guard let create = symbol("libevdev_uinput_create_from_device"),
      let destroy = symbol("libevdev_uinput_destroy"),
      let devnode = symbol("libevdev_uinput_get_devnode"),
      let write = symbol("libevdev_uinput_write_event")
    else { return nil }
    return UinputCalls(
      createFromDevice: unsafeBitCast(
        create,
        to: (@convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<Handle?>?) -> Int32).self
      ),
      destroy: unsafeBitCast(destroy, to: (@convention(c) (Handle?) -> Void).self),
      devnode: unsafeBitCast(
        devnode, to: (@convention(c) (Handle?) -> UnsafePointer<CChar>?).self),
      writeEvent: unsafeBitCast(
        write, to: (@convention(c) (Handle?, UInt32, UInt32, Int32) -> Int32).self))
  }
}
