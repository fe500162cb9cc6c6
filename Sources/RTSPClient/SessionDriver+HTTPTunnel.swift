import NIOCore
@_spi(SansIO) import RTSP

/// RTSP over HTTP (``RTSPSessionOptions/Transport/http``): the connection made by `start()` carries the
/// tunnel's GET, whose answer, once its head has passed, is the server's side of RTSP; a second connection
/// carries the POST, the client's side (``SessionDriver/write(_:)`` encodes each message for it).
extension SessionDriver {
    /// Bytes of the GET's answer while its head is coming: once it has, a 200 opens the POST and starts the
    /// state machine; a 401 is answered once, when the user gave credentials for this origin; anything else
    /// fails the session (or its attempt).
    func tunnelBytes(_ buffer: ByteBuffer) {
        tunnelAnswer?.append(contentsOf: buffer.readableBytesView)
        guard let bytes = tunnelAnswer, let tunnel else { return }
        let read: (answer: HTTPTunnel.Answer, rest: ArraySlice<UInt8>)?
        do throws(RTSPError) {
            read = try HTTPTunnel.readAnswer(bytes)
        } catch {
            return fail(RTSPClientError(.protocolViolation, error.reason))
        }
        guard let (answer, rest) = read else { return }
        tunnelAnswer = nil
        guard answer.status == 200 else { return refused(answer) }
        framer.append(rest)  // the RTSP side may have begun in the same read
        let generation = self.generation
        let authorization = tunnelAuthenticator?.authorization(method: "POST", uri: url.path)
        connect(generation: generation) { [self] in
            ControlChannelHandler(driver: self, generation: generation, readsServer: false)
        }
        .whenSuccess { [self] post in
            tunnelPost = post
            post.writeAndFlush(ByteBuffer(bytes: tunnel.postRequest(authorization: authorization)), promise: nil)
            perform(machine.start(now: now))
            readFramer(generation: generation)
        }
    }

    /// The GET's request, with credentials when the server asked for them on the tunnel.
    func tunnelGetRequest(_ tunnel: HTTPTunnel) -> [UInt8] {
        tunnel.getRequest(authorization: tunnelAuthenticator?.authorization(method: "GET", uri: url.path))
    }

    /// A GET answered with something other than 200.
    private func refused(_ answer: HTTPTunnel.Answer) {
        let status = "\(answer.status) \(answer.reason)"
        if answer.status == 401 {
            let offered = answer.headers.filter { $0.name.lowercased() == "www-authenticate" }.map(\.value)
            if tunnelAuthenticator == nil, let credentials = credentials(for: url),
                let challenges = try? AuthenticationChallenge.parse(offered),
                let challenge = AuthenticationChallenge.strongest(challenges)
            {
                // Some cameras (Axis) guard the tunnel itself: the GET and POST again, with credentials.
                tunnelAuthenticator = Authenticator(challenge: challenge, credentials: credentials)
                let old = leaveConnection()
                start()
                old?.close(promise: nil)
                return
            }
            return fail(
                RTSPClientError(
                    .unauthorized,
                    "HTTP \(status) from \(url.origin) for the tunnel's GET: "
                        + (credentials(for: url) == nil
                            ? "it wants a user name and password"
                            : "it refused the user name and password; check them"),
                    status: 401))
        }
        fail(
            RTSPClientError(
                .serverError,
                "the server answered the HTTP tunnel's GET with \(status): it may not tunnel RTSP over HTTP at this "
                    + "port and path (cameras often serve it on port 80); try the TCP transport",
                status: answer.status))
    }

    /// What a server sends on the POST, which carries only the client's side: nothing, or an HTTP answer
    /// when it refuses the POST (kept to the first 1 KiB). A refusal ends the session (or its attempt) at
    /// once, where the RTSP requests would have gone unanswered until their timeout.
    func tunnelPostBytes(_ buffer: ByteBuffer, generation: Int) {
        guard generation == self.generation, phase != .closed, tunnelPostAnswer.count < 1024 else { return }
        tunnelPostAnswer += buffer.readableBytesView.prefix(1024 - tunnelPostAnswer.count)
        guard let (answer, _) = try? HTTPTunnel.readAnswer(tunnelPostAnswer), !(200...299).contains(answer.status)
        else { return }
        fail(
            RTSPClientError(
                .serverError,
                "the server refused the HTTP tunnel's POST with \(answer.status) \(answer.reason.prefix(64)): it "
                    + "takes no requests through the tunnel; try the TCP transport",
                status: answer.status))
    }

    /// Closes the POST of the tunnel, if there is one.
    func closeTunnel() {
        tunnelPost?.close(promise: nil)
        tunnelPost = nil
        tunnelAnswer = nil
        tunnelPostAnswer = []
    }
}
