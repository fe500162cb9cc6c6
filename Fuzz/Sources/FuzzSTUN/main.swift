@_spi(SansIO) import ICE
import PacketCapture
import RTP

/// Reads the input as a STUN message and as an ICE-lite agent's and a controlling agent's datagram: every accessor
/// touched, the checks run; a message that reads is written again and must read back with the same attributes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSTUN(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let key = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    _ = STUNMessage.looksLikeSTUN(bytes)
    if let message = try? STUNMessage(parsing: bytes) {
        _ = (message.username, message.xorMappedAddress, message.priority, message.useCandidate)
        _ = (message.iceControlling, message.iceControlled, message.errorCode?.reason)
        _ = (message.fingerprintIsValid, message.integrityIsValid(key: key))
        let written = message.serialized(integrityKey: key)
        guard let again = try? STUNMessage(parsing: written) else {
            preconditionFailure("a written message does not read")
        }
        let kept = message.attributes.filter {
            $0.type != STUNAttribute.messageIntegrity && $0.type != STUNAttribute.fingerprint
        }
        precondition(Array(again.attributes.prefix(kept.count)) == kept, "attributes changed in writing")
        precondition(again.integrityIsValid(key: key) && again.fingerprintIsValid, "a written message does not check")
    }
    var agent = ICELiteAgent(
        local: .init(usernameFragment: "evtj", password: "VOkJxbRl1RmTxUk/WvJxBt"), remoteUsernameFragment: "h6vY")
    let from = SocketAddress(address: .v4(0x7F00_0001), port: 5000)
    _ = agent.receive(bytes, from: from, now: ArrivalTime(nanoseconds: 0))
    _ = agent.expire(now: ArrivalTime(nanoseconds: 31_000_000_000))
    // A publisher's agent takes the same datagram from the endpoint it checks.
    var publisher = ICEControllingAgent(
        local: .init(usernameFragment: "h6vY", password: "publisher-password-012345"),
        remote: .init(usernameFragment: "evtj", password: "VOkJxbRl1RmTxUk/WvJxBt"), candidates: [from])
    _ = publisher.start(now: ArrivalTime(nanoseconds: 0))
    _ = publisher.receive(bytes, from: from, now: ArrivalTime(nanoseconds: 1_000_000))
    _ = publisher.wake(now: ArrivalTime(nanoseconds: 40_000_000_000))
    return 0
}
