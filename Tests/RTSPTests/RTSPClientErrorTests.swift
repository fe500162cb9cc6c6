@_spi(SansIO) import RTSP
import Testing

/// Errors a user handles by code, whatever their sentence says.
@Suite struct RTSPClientErrorTests {
    struct Other: Error {}

    static func failing(_ error: any Error) throws { throw error }

    @Test func aCatchMatchesTheCodeAlone() {
        var caught: [String] = []
        for error: any Error in [
            RTSPClientError(.unauthorized, "401 Unauthorized from camera:554"),
            RTSPClientError(.noMedia, "no RTP for 10 s"), Other(),
        ] {
            do {
                try Self.failing(error)
            } catch RTSPClientError.Code.unauthorized {
                caught.append("unauthorized")
            } catch RTSPClientError.Code.noMedia {
                caught.append("noMedia")
            } catch {
                caught.append("other")
            }
        }
        #expect(caught == ["unauthorized", "noMedia", "other"])
    }
}
