import Testing

@_spi(SansIO) @testable import RTSP

/// The QuickTime tunnel's requests as FFmpeg and QuickTime write them (a capture of `ffmpeg
/// -rtsp_transport http` against gst-rtsp-server shows the same headers), and the GET's answer read as
/// servers send it.
@Suite struct HTTPTunnelTests {
    static let url = try! RTSPURL("rtsp://user:secret@cam.local:8554/live/main?x=1")

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func theGetAndPostCarryTheCookieAndNoCredentials() {
        let tunnel = HTTPTunnel(url: Self.url, cookie: "abcDEF123")
        let get = Self.text(tunnel.getRequest())
        #expect(get.hasPrefix("GET /live/main?x=1 HTTP/1.0\r\n"))
        #expect(get.contains("\r\nHost: cam.local:8554\r\n"))
        #expect(get.contains("\r\nx-sessioncookie: abcDEF123\r\n"))
        #expect(get.contains("\r\nAccept: application/x-rtsp-tunnelled\r\n"))
        #expect(get.hasSuffix("\r\n\r\n"))
        let post = Self.text(tunnel.postRequest())
        #expect(post.hasPrefix("POST /live/main?x=1 HTTP/1.0\r\n"))
        #expect(post.contains("\r\nx-sessioncookie: abcDEF123\r\n"))
        #expect(post.contains("\r\nContent-Type: application/x-rtsp-tunnelled\r\n"))
        #expect(post.contains("\r\nContent-Length: 32767\r\n"))
        for request in [get, post] { #expect(!request.contains("secret") && !request.contains("Authorization")) }
        #expect(Self.text(tunnel.getRequest(authorization: "Basic dTpw")).contains("\r\nAuthorization: Basic dTpw\r\n"))
        let other = HTTPTunnel(url: Self.url)
        #expect(other.cookie.count == 22 && other.cookie != HTTPTunnel(url: Self.url).cookie)
    }

    /// Each message in base64 on its own, padded (what FFmpeg sends: gst-rtsp-server decodes it so).
    @Test func messagesAreBase64EachOnItsOwn() {
        let options = Array(
            "OPTIONS rtsp://127.0.0.1:18555/test RTSP/1.0\r\nCSeq: 1\r\nUser-Agent: Lavf59.27.100\r\n\r\n".utf8)
        #expect(
            Self.text(HTTPTunnel.encode(options))
                == "T1BUSU9OUyBydHNwOi8vMTI3LjAuMC4xOjE4NTU1L3Rlc3QgUlRTUC8xLjANCkNTZXE6IDENClVzZXItQWdlbnQ6IExhdmY1OS4yNy4xMDANCg0K"
        )
    }

    @Test func theAnswersHeadIsReadWhenItIsWholeAndTheRestIsRTSP() throws {
        let answer = Array(
            "HTTP/1.1 200 OK\r\nServer: GStreamer RTSP Server\r\nContent-Type: application/x-rtsp-tunnelled\r\n\r\nRTSP/1.0 200 OK\r\n"
                .utf8)
        for cut in 0..<answer.count - 20 {
            let prefix = Array(answer[..<cut])
            #expect(try HTTPTunnel.readAnswer(prefix) == nil, "cut at \(cut)")
        }
        let (head, rest) = try #require(try HTTPTunnel.readAnswer(answer))
        #expect(head.status == 200)
        #expect(head.header("content-type") == "application/x-rtsp-tunnelled")
        #expect(Self.text(Array(rest)) == "RTSP/1.0 200 OK\r\n")
        let bare = try #require(
            try HTTPTunnel.readAnswer(Array("HTTP/1.0 401 Unauthorized\nWWW-Authenticate: Basic realm=\"x\"\n\n".utf8)))
        #expect(bare.answer.status == 401 && bare.answer.reason == "Unauthorized")
        #expect(bare.answer.header("WWW-Authenticate") == "Basic realm=\"x\"")
        #expect(bare.rest.isEmpty)
    }

    @Test func whatIsNotAnHTTPAnswerIsAClearError() {
        let rtsp = #expect(throws: RTSPError.self) { try HTTPTunnel.readAnswer(Array("RTSP/1.0 200 OK\r\n\r\n".utf8)) }
        #expect(rtsp?.reason.contains("not HTTP") == true)
        let noStatus = #expect(throws: RTSPError.self) { try HTTPTunnel.readAnswer(Array("HTTP/1.0 OK\r\n\r\n".utf8)) }
        #expect(noStatus?.reason.contains("no HTTP status") == true)
        let endless =
            Array("HTTP/1.0 200 OK\r\n".utf8) + Array(repeating: UInt8(ascii: "a"), count: HTTPTunnel.maxAnswerHead)
        let limit = #expect(throws: RTSPError.self) { try HTTPTunnel.readAnswer(endless) }
        #expect(limit?.code == .limitExceeded)
        let control = #expect(throws: RTSPError.self) { try HTTPTunnel.readAnswer([0x00, 0x1B, 0x41]) }
        #expect(control?.reason.contains("\\x1B") == true)  // escaped, never raw
        // A chunked body (a web server's page, not a tunnel) once read as RTSP: "starts with byte 0x35".
        let chunked = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n".utf8)
        let page = #expect(throws: RTSPError.self) { try HTTPTunnel.readAnswer(chunked) }
        #expect(page?.reason.contains("chunked body") == true)
    }
}
