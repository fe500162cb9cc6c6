@_spi(SansIO) import RTSP
import RTP

/// The RTSP client's state machine fed a script of what a server and time can do, as the session driver
/// feeds it. Per step an opcode byte (its value modulo 8):
/// 0: raw server bytes (a length byte, then the bytes) through the framer;
/// 1: an answer to the last request (a status byte, a length byte and header lines, a length byte and a
///    body), with its CSeq, so that the machine gets past each step;
/// 2: time passes (a byte × 100 ms); 3: teardown; 4: pause; 5: resume; 6: setup (a byte: bit 7 all
///    tracks, else bits 0-6 the selection); 7: play.
///
/// A first byte of 9 (an answer, as 1) makes the session stepwise. A first byte with its two top bits set
/// instead sets the connection up as a reconnecting session's would (and is not an opcode): bits 0-1 the
/// transport (TCP; UDP with the next byte's pairs of ports, 0 to 7; multicast), bit 2 a stale session to
/// tear down first, bit 3 only that, bit 4 through the HTTP tunnel (raw server bytes are first the GET's
/// answer, read as the driver reads it; each request is written base64 and must decode back), bit 5
/// stepwise.
///
/// Checked: after a terminal action (failed, closed, redirect) nothing more is sent; no error and no
/// request line holds the password or its Basic form; UDP never asks for a port past the pairs bound;
/// through the tunnel, what is written is whole base64 of the request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTSPClient(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var script = Script(input: input[...])
    guard let url = try? RTSPURL("rtsp://cam.example/stream") else { return 0 }
    var player = Player()
    var configuration = RTSPClientStateMachine.Configuration(
        url: url, credentials: Credentials(user: "fuzz", password: Secret.password), stepwise: input.first == 9)
    var tunnelAnswer: [UInt8]?
    if let first = input.first, first & 0xC0 == 0xC0 {
        _ = script.byte()
        switch first & 3 {
        case 1:
            let pairs = Int(script.byte() ?? 0) % 8
            configuration.transport = .udp(firstClientPort: 40000, portPairs: pairs)
            player.portPairs = pairs
        case 2: configuration.transport = .multicast
        default: break
        }
        if first & 4 != 0 { configuration.staleSession = "STALE" }
        configuration.onlyTearsDownStaleSession = first & 8 != 0
        if first & 0x10 != 0 { tunnelAnswer = [] }
        configuration.stepwise = first & 0x20 != 0
    }
    player.tunnels = tunnelAnswer != nil
    // An odd length plays a recording as an ONVIF replay (Range, Require on DESCRIBE, SETUP and PLAY).
    if input.count % 2 == 1 {
        configuration.playback = PlaybackRequest(range: .npt(start: 1, end: nil), onvifReplay: true)
    }
    // A length divisible by 3 asks for the ONVIF backchannel (Require on DESCRIBE, SETUP and PLAY; sendonly
    // sections set up to send on).
    configuration.backchannel = input.count % 3 == 0
    var machine = RTSPClientStateMachine(configuration: configuration)
    var framer = RTSPFramer(limits: .init(maxHeaderBytes: 4096, maxBodyBytes: 8192))
    var now = ArrivalTime(nanoseconds: 0)
    if tunnelAnswer == nil { player.perform(machine.start(now: now)) }
    while let opcode = script.byte() {
        switch opcode % 8 {
        case 0:
            let bytes = script.bytes(count: Int(script.byte() ?? 0))
            // Through the tunnel, the GET's answer comes first: the machine starts once it is a 200.
            if var answer = tunnelAnswer {
                answer += bytes
                guard answer.count <= HTTPTunnel.maxAnswerHead + 256 else { return 0 }
                do throws(RTSPError) {
                    guard let (head, rest) = try HTTPTunnel.readAnswer(answer) else {
                        tunnelAnswer = answer
                        continue
                    }
                    guard head.status == 200 else { return 0 }
                    tunnelAnswer = nil
                    framer.append(rest)
                    player.perform(machine.start(now: now))
                } catch {
                    Secret.check(error.reason)
                    return 0
                }
            } else {
                framer.append(bytes)
            }
        case 1:
            let statuses = [200, 200, 200, 401, 302, 461, 404, 454, 500, 301]
            let status = statuses[Int(script.byte() ?? 0) % statuses.count]
            var headers = String(decoding: script.bytes(count: Int(script.byte() ?? 0)), as: UTF8.self)
            if !headers.isEmpty && !headers.hasSuffix("\r\n") { headers += "\r\n" }
            let body = script.bytes(count: Int(script.byte() ?? 0))
            let answer =
                "RTSP/1.0 \(status) Reason\r\nCSeq: \(player.lastCSeq)\r\n\(headers)Content-Length: \(body.count)\r\n\r\n"
            framer.append(Array(answer.utf8) + body)
        case 2:
            now = now + .milliseconds(100 * Int(script.byte() ?? 0))
            player.perform(machine.tick(now: now))
        case 3: player.perform(machine.teardown(now: now))
        case 4: player.perform(machine.pause(now: now))
        case 5: player.perform(machine.resume(now: now))
        case 6:
            let selection = script.byte() ?? 0x80
            let tracks = selection & 0x80 != 0 ? nil : (0..<7).filter { selection & (1 << $0) != 0 }
            player.perform(machine.setup(tracks: tracks, now: now))
        default:
            // PLAY when set up stepwise; the multicast groups joined when the machine waits for that; a seek
            // (a recording's new position) when playing or paused.
            player.perform(machine.play(now: now))
            player.perform(machine.multicastJoined(now: now))
            player.perform(machine.seek(PlaybackRequest(range: .npt(start: 7, end: nil), scale: -2), now: now))
        }
        // What the framer has, as the driver hands it on; a framing error ends the connection.
        do {
            while let frame = try framer.next() {
                if case .message(let message) = frame { player.perform(machine.receive(message, now: now)) }
            }
        } catch {
            Secret.check(error.reason)
            return 0
        }
    }
    return 0
}

enum Secret {
    static let password = "Pa55-fuzz-secret"
    /// `printf fuzz:Pa55-fuzz-secret | base64`
    static let basic = "ZnV6ejpQYTU1LWZ1enotc2VjcmV0"

    static func check(_ text: String) {
        if text.firstRange(of: password) != nil || text.firstRange(of: basic) != nil {
            preconditionFailure("the credentials are in: \(text)")
        }
    }
}

struct Player {
    var lastCSeq = 0
    var ended = false
    /// UDP: the pairs of ports bound; nil for another transport.
    var portPairs: Int?
    var tunnels = false

    mutating func perform(_ actions: [RTSPClientStateMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let request, let cseq):
                if ended { preconditionFailure("\(request.method) sent after the session ended") }
                lastCSeq = cseq
                Secret.check("\(request.method) \(request.url)")
                if let pairs = portPairs, let transport = request.headers["Transport"],
                    let range = transport.firstRange(of: "client_port=")
                {
                    let port = Int(transport[range.upperBound...].prefix { $0.isNumber }) ?? 0
                    precondition(port + 1 < 40000 + 2 * pairs, "SETUP asks for port \(port), \(pairs) pairs bound")
                }
                if tunnels {
                    let bytes = request.serialized(cseq: cseq)
                    let written = HTTPTunnel.encode(bytes)
                    let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".utf8)
                    precondition(
                        written.count == (bytes.count + 2) / 3 * 4 && written.allSatisfy(alphabet.contains),
                        "the tunnel's base64 of the request is malformed")
                }
            case .joinMulticast(let tracks):
                if ended { preconditionFailure("a multicast join asked after the session ended") }
                precondition(!tracks.isEmpty, "a multicast join of no track")
            case .failed(let error):
                Secret.check(error.reason)
                ended = true
            case .closed, .redirect:
                ended = true
            case .respond, .described, .setUp, .playing, .paused, .resumed, .seeked, .wakeUp:
                break
            }
        }
    }
}

struct Script {
    var input: ArraySlice<UInt8>

    mutating func byte() -> UInt8? { input.popFirst() }

    mutating func bytes(count: Int) -> [UInt8] {
        let taken = Array(input.prefix(count))
        input = input.dropFirst(count)
        return taken
    }
}
