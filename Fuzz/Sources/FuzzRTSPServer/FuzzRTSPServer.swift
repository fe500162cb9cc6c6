import FuzzSupport
import RTP
@_spi(SansIO) import RTSP
import SDP

/// A client's bytes into the server's connection, as its handler runs it: the framer in chunks (many requests,
/// partial ones, slow ones: each chunk's first byte moves time on), every request through `receive`, interleaved
/// frames as activity, the connection's deadlines told of each framing pass and asked after it (a request timed
/// out ends the input: the connection closes), wrong answers through the server's throttle. The first byte of
/// the input picks the configuration: Digest required (a nonce nobody can answer), UDP offered, the session limit.
///
/// Checks, besides crashes: every request gets exactly one answer (a response, a refusal, or a PLAY to answer);
/// each answer frames back as one response with the request's CSeq (0 for a CSeq that is not 1 to 9 digits); no
/// more sessions than the limit; nothing is played without authentication; the throttle's holds are never negative nor past the queue of what was refused.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTSPServer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let flags = data[0]
    var configuration = RTSPServerStateMachine.Configuration()
    let requiresAuthentication = flags & 1 != 0
    if requiresAuthentication {
        configuration.authentication = ServerAuthentication(users: [Credentials(user: "u", password: "p")])
    }
    if flags & 2 != 0 { configuration.udpPorts = (6970, 6971) }
    configuration.maxSessions = Int(flags >> 4) % 4 + 1
    configuration.sessionTimeout = .seconds(Int64(flags >> 2 & 3) + 1)
    let formats: [MediaFormat] = [
        .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1)),
        .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)),
    ]
    var machine = RTSPServerStateMachine(
        presentations: [.init(path: "/a", formats: formats), .init(path: "/", formats: [formats[0]])],
        configuration: configuration)
    var framer = RTSPFramer(
        limits: .init(maxHeaderBytes: 2048, maxLineBytes: 512, maxBodyBytes: 1024, maxHeaderFields: 16))
    var now = ArrivalTime(nanoseconds: 0)
    var deadlines = ConnectionDeadlines(
        requestTimeout: .seconds(2), idleTimeout: configuration.sessionTimeout, stallTimeout: .seconds(3), now: now)
    var throttle = AuthenticationThrottle()
    var refusals = 0
    var timedOut = false
    try? forEachChunk(of: data + 1, size: size - 1) { chunk in
        guard !timedOut else { return }  // the connection is closed: the rest is never read
        now = now + .milliseconds(Int64(chunk.first ?? 0) * 20)
        framer.append(chunk)
        var whole = 0
        while let frame = try framer.next() {
            whole += 1
            switch frame {
            case .interleaved:
                machine.noteActivity(now: now)
            case .message(let message):
                guard case .request = message.kind else { continue }
                let actions = machine.receive(message, now: now)
                if case .refuseAuthentication? = actions.first {
                    refusals += 1
                    let hold = throttle.delay(afterFailureFrom: "client", now: now)
                    precondition(hold >= .zero && hold <= .seconds(4) * refusals, "a hold of \(hold)")
                }
                check(actions, for: message, requiresAuthentication: requiresAuthentication)
            }
        }
        deadlines.framed(whole: whole, partial: framer.pendingBytes > 0, now: now)
        deadlines.writability((chunk.last ?? 0) & 0x80 == 0, now: now)
        if deadlines.check(now: now, hasSessions: !machine.sessionIDs.isEmpty) == .requestTimedOut { timedOut = true }
        _ = machine.expire(now: now)
        precondition(machine.sessionIDs.count <= configuration.maxSessions, "more sessions than the limit")
    }
    _ = machine.close()
    precondition(machine.sessionIDs.isEmpty)
    return 0
}

private func check(_ actions: [RTSPServerStateMachine.Action], for request: RTSPMessage, requiresAuthentication: Bool) {
    var answers: [RTSPMessage] = []
    for action in actions {
        switch action {
        case .respond(let answer): answers.append(answer)
        case .play(let play):
            precondition(!requiresAuthentication, "played without authentication")
            answers.append(play.response(startingAt: [0: (1, 2), 1: (3, 4)]))
        case .refuseAuthentication(let answer):
            precondition(requiresAuthentication, "a guess refused where nothing is asked")
            answers.append(answer)
        case .pause, .teardown: break
        }
    }
    precondition(answers.count == 1, "\(answers.count) answers to one request")
    var framer = RTSPFramer()
    framer.append(answers[0].serialized())
    guard case .message(let parsed)? = try? framer.next(), case .response = parsed.kind else {
        preconditionFailure("an answer that does not frame back")
    }
    precondition(framer.pendingBytes == 0, "an answer that frames as more than one message")
    let value = request.header("CSeq") ?? ""
    let cseq = String(value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    let isNumber = (1...9).contains(cseq.utf8.count) && cseq.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    precondition(parsed.header("CSeq") == (isNumber ? cseq : "0"), "an answer with another CSeq")
}
