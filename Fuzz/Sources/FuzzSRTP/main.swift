import SRTP

/// Offers the input to an SRTP receiver as SRTP and as SRTCP packets (split at each 0xFF byte, so one
/// input is several packets of one session): nothing may crash, and nothing unauthenticated may pass.
/// The first byte picks the suite.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSRTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let suite = SRTPSuite.allCases[Int(first) % SRTPSuite.allCases.count]
    guard let key = try? SRTPKey(suite: suite, material: [UInt8](repeating: 0x5A, count: suite.keyLength)),
        let receiver = try? SRTPReceiver(key: key)
    else { return 0 }
    for (index, packet) in bytes.dropFirst().split(separator: 0xFF).enumerated() {
        // Random bytes cannot carry a valid tag for this key (2^-80 or 2^-128): none may be accepted.
        if index % 2 == 0 {
            precondition((try? receiver.unprotect(packet)) == nil)
        } else {
            precondition((try? receiver.unprotectRTCP(packet)) == nil)
        }
    }
    return 0
}
