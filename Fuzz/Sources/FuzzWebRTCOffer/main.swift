import SDP
@_spi(SansIO) import WebRTC

/// Reads the input as a WHIP endpoint's answer, and as a browser's offer; one that reads is answered with an H.264 and a G.711 track, and the
/// answer must read back as a session description with a section per offered one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebRTCOffer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // Read as an endpoint's answer to a publisher too: candidates, fingerprints, roles, sections.
    if let answer = try? WHIPAnswer(text) {
        precondition(answer.fingerprint.count == 32, "an answer read with a fingerprint that is not SHA-256's")
    }
    guard let offer = try? WebRTCOffer(text) else { return 0 }
    let formats: [MediaFormat] = [
        .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1, profileLevelID: "42e01f")),
        .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)),
    ]
    guard
        let answer = try? WebRTCAnswer(
            offer: offer, formats: formats, iceUsernameFragment: "abcd", icePassword: "0123456789abcdefghijklmn",
            fingerprint: "sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"),
            candidates: [.init(address: "127.0.0.1", port: 5000)])
    else { return 0 }
    guard let sdp = try? SessionDescription(answer.text) else { preconditionFailure("an answer does not read back") }
    precondition(sdp.media.count == offer.sections.count, "an answer with another number of sections")
    return 0
}
