import H26x
import PacketCapture

@testable import RTPDumpCore

extension CaptureMediaStreams {
    /// Offers a capture's datagram; `emit` receives each access unit it completes, with its stream.
    mutating func add(_ datagram: UDPDatagram, accessUnits emit: (StreamKey, AccessUnit) -> Void) {
        add(datagram, units: { stream, unit in if case .video(let picture) = unit { emit(stream, picture) } })
    }

    /// Ends every stream; `emit` receives the last access units, with their streams.
    mutating func finish(accessUnits emit: (StreamKey, AccessUnit) -> Void) {
        finish(units: { stream, unit in if case .video(let picture) = unit { emit(stream, picture) } })
    }
}
