import RTP
import Testing

@_spi(SansIO) @testable import RTSP

@Suite struct RTSPURLTests {
    @Test func credentialsAreTakenOutAndNeverPrinted() throws {
        let url = try RTSPURL("rtsp://admin:p%40ss@192.168.1.20:8554/Streaming/Channels/101?transport=tcp")
        #expect(url.credentials == Credentials(user: "admin", password: "p@ss"))
        #expect(url.host == "192.168.1.20")
        #expect(url.port == 8554)
        #expect(url.path == "/Streaming/Channels/101?transport=tcp")
        #expect(url.description == "rtsp://192.168.1.20:8554/Streaming/Channels/101?transport=tcp")
        #expect(!"\(url)".contains("p@ss") && !"\(url)".contains("p%40ss"))
    }

    @Test func defaultsAndIPv6() throws {
        #expect(try RTSPURL("rtsp://cam").port == 554)
        #expect(try RTSPURL("rtsp://cam").path == "/")
        #expect(try RTSPURL("rtsps://cam/s").port == 322)
        let v6 = try RTSPURL("RTSP://[fe80::1]:1554/live")
        #expect(v6.host == "fe80::1")
        #expect(v6.port == 1554)
        #expect(v6.description == "rtsp://[fe80::1]:1554/live")
    }

    @Test(arguments: [
        "http://cam/s", "rtsp://", "rtsp://cam:0/s", "rtsp://cam:99999/s", "rtsp://cam:abc/s", "rtsp://[::1/s",
    ])
    func badURLsAreClearErrors(text: String) {
        #expect(throws: RTSPError.self) { try RTSPURL(text) }
    }

    /// A blank or control character would cut the request line it is written into: refused before
    /// connecting (a URL with a space was sent, and failed as "connection reset"), naming the part that
    /// holds it, never the password.
    @Test(arguments: [
        ("rtsp://cam/live a", "a space in its path"), ("rtsp://cam/live\tb", "a control character in its path"),
        ("rtsp://ca m/live", "a space in its host"),
        ("rtsp://admin:se cret@cam/", "a space in its user name or password"),
        ("rtsp://cam/x\r\nInjected: 1", "a control character in its path"),
    ])
    func blanksAndControlCharactersAreRefused(url: String, words: String) {
        let error = #expect(throws: RTSPError.self) { try RTSPURL(url) }
        #expect(error?.reason.contains(words) == true, "\(String(describing: error))")
        #expect(error?.reason.contains("cret") == false)
    }

    @Test func errorsNeverCarryTheURLsPassword() {
        let error = #expect(throws: RTSPError.self) { try RTSPURL("rtsp://user:secret@cam:port/s") }
        #expect(error?.description.contains("secret") == false)
    }

    @Test func controlURLsResolveAsRFC2326Says() throws {
        let base = try RTSPURL("rtsp://user:pw@cam/live.sdp")
        #expect(base.resolving("trackID=1").description == "rtsp://cam/live.sdp/trackID=1")
        #expect(base.resolving("*").description == "rtsp://cam/live.sdp")
        #expect(base.resolving("").description == "rtsp://cam/live.sdp")
        #expect(base.resolving("/other/track2").description == "rtsp://cam/other/track2")
        #expect(base.resolving("rtsp://cam2:1554/x/trackID=0").description == "rtsp://cam2:1554/x/trackID=0")
        #expect(base.resolving("rtsp://a:b@cam2/x").credentials == nil)
        let slash = try RTSPURL("rtsp://cam/stream/")
        #expect(slash.resolving("track1").description == "rtsp://cam/stream/track1")
    }
}

@Suite struct SessionHeaderTests {
    @Test func timeoutDefaultsToSixtySecondsAndKeepaliveIsHalf() throws {
        let plain = try #require(SessionHeader("12345678"))
        #expect(plain.id == "12345678")
        #expect(plain.timeout == .seconds(60))
        #expect(plain.keepaliveInterval == .seconds(30))
        let given = try #require(SessionHeader("A3F2;timeout=20"))
        #expect(given.timeout == .seconds(20))
        #expect(SessionHeader("x;timeout=-5")?.timeout == .seconds(60))
        #expect(SessionHeader("") == nil)
    }

    /// Cameras' spellings (issue 19): spaces around the id and the `=`, another case, a trailing `;`.
    @Test(arguments: [
        "12345678 ; timeout = 20", "12345678;Timeout=20;", " 12345678;timeout=20 ", "12345678;x=1;timeout=20",
    ])
    func sessionIdsAndTimeoutsInCamerasSpellings(value: String) throws {
        let header = try #require(SessionHeader(value))
        #expect(header.id == "12345678")
        #expect(header.timeout == .seconds(20))
    }
}

@Suite struct RTSPRequestTests {
    @Test func serializesWithCSeqAndWithoutCredentials() throws {
        let url = try RTSPURL("rtsp://admin:secret@cam/live")
        let request = RTSPRequest(method: "DESCRIBE", url: url, headers: ["Accept": "application/sdp"])
        let text = String(decoding: request.serialized(cseq: 2), as: UTF8.self)
        #expect(
            text
                == "DESCRIBE rtsp://cam/live RTSP/1.0\r\nCSeq: 2\r\nUser-Agent: swift-rtp\r\nAccept: application/sdp\r\n\r\n"
        )
        // What we send, our own framer reads back.
        var framer = RTSPFramer()
        framer.append(request.serialized(cseq: 2))
        guard case .message(let message)? = try framer.next() else {
            Issue.record("not framed")
            return
        }
        #expect(message.kind == .request(method: "DESCRIBE", uri: "rtsp://cam/live"))
        #expect(message.cseq == 2)
    }
}

@Suite struct CredentialOriginTests {
    let credentials = Credentials(user: "admin", password: "pw")

    @Test func anOriginIsSchemeHostAndPortWithTheHostInAnyCase() throws {
        let scoped = ScopedCredentials(credentials, for: try RTSPURL("rtsp://Camera.local/stream").origin)
        #expect(scoped.credentials(for: try RTSPURL("rtsp://camera.LOCAL:554/other?x=1")) == credentials)
        #expect(scoped.credentials(for: try RTSPURL("rtsp://camera.local:8554/stream")) == nil)
        #expect(scoped.credentials(for: try RTSPURL("rtsps://camera.local:554/stream")) == nil)
        #expect(scoped.credentials(for: try RTSPURL("rtsp://camera.local.evil/stream")) == nil)
        #expect(scoped.credentials(for: try RTSPURL("rtsp://10.0.0.9/stream")) == nil)
    }

    @Test func anotherOriginGetsOnlyTheCredentialsItsOwnURLCarries() throws {
        let scoped = ScopedCredentials(credentials, for: try RTSPURL("rtsp://camera/stream").origin)
        let own = Credentials(user: "guest", password: "other")
        #expect(scoped.credentials(for: try RTSPURL("rtsp://guest:other@elsewhere/stream")) == own)
    }

    @Test func neitherOriginNorScopedCredentialsPrintThePassword() throws {
        let scoped = ScopedCredentials(credentials, for: try RTSPURL("rtsp://[::1]:8554/x").origin)
        #expect("\(scoped)" == "admin:<password> for rtsp://[::1]:8554")
    }
}

@Suite struct PeerTextTests {
    @Test func controlCharactersAreEscapedAndTheRestKept() {
        #expect("plain text, é ü 日本".escapingControlCharacters == "plain text, é ü 日本")
        #expect(
            "\u{1B}]0;owned\u{07}x\u{9B}31m\u{7F}\r\n\0".escapingControlCharacters
                == "\\x1B]0;owned\\x07x\\x9B31m\\x7F\\x0D\\x0A\\x00")
    }

    @Test func errorsEscapeWhatTheyQuote() {
        let error = RTSPClientError(.serverError, "answered with 404 \u{1B}[31mNot Found")
        #expect(error.reason == "answered with 404 \\x1B[31mNot Found")
        #expect(RTSPError(.malformedMessage, "bad line \u{1B}c").reason == "bad line \\x1Bc")
    }
}
