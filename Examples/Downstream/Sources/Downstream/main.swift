// An application of the public face alone: `import SwiftRTP`, a camera's units counted.
import SwiftRTP

let url = CommandLine.arguments.dropFirst().first ?? "rtsp://127.0.0.1:8554/stream"
do {
    let session = try await RTSPSession.connect(to: url)
    var count = 0
    for try await unit in try session.media() {
        count += 1
        if count == 30 { print(unit) }
        if count == 100 { break }
    }
    await session.teardown()
} catch let error as RTSPClientError where error.code == .unauthorized {
    print("wrong user or password: \(error)")
} catch {
    print("\(error)")
}
