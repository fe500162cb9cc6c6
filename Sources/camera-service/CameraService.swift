import Logging
import ServiceLifecycle
import SwiftRTP

/// A camera relayed to any number of viewers and recorded to MP4, until SIGTERM or SIGINT:
/// `camera-service rtsp://camera.local/stream 8554 door.mp4` serves `rtsp://this-host:8554/camera`.
@main struct CameraService {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let port = Int(arguments[2]) else {
            return print("usage: camera-service CAMERA-URL PORT RECORDING.mp4")
        }
        var options = RTSPSessionOptions()
        // A camera that restarts is played and recorded on; one that is down (or slow to answer) when the service
        // starts is waited for, as an unattended service must.
        options.reconnection = .init(includesFirstConnect: true)
        let server = RTSPServer(configuration: .init(port: port))
        let relay = RTSPRelay(arguments[1], options: options, server: server, path: "/camera")
        let recorder = SessionRecorder(arguments[1], options: options, to: arguments[3])
        // On a signal, in reverse order: the recorder closes its file whole, the relay ends its camera session and
        // says BYE to its viewers, the server lets them tear down and stops.
        let group = ServiceGroup(
            services: [server, relay, recorder], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: Logger(label: "camera-service"))
        try await group.run()
    }
}
