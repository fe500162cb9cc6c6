// The README's "Using the library" examples, as code the tests build and run (ReadmeExamplesTests checks
// that every line of each README block is here, in order). Edit both together.
import FFmpegDecoding
import H26x
import MediaPipeline
import PacketCapture
import RTP
import VideoDecoding

enum ReadmeExamples {
    /// "Reading a capture": every access unit of a capture's H.264 stream.
    static func accessUnits(ofCapture path: String) throws -> [AccessUnit] {
        var units: [AccessUnit] = []
        var capture = try CaptureFile(contentsOf: path)
        var pipeline = MediaPipeline(depacketizers: [VideoDepacketizer(codec: .h264)])
        while let datagram = try capture.nextDatagram() {
            guard !RTPPacket.looksLikeRTCP(datagram.payload), let packet = try? RTPPacket(datagram.payload) else {
                continue
            }
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
            while let unit = pipeline.nextAccessUnit() {
                units.append(unit)  // unit.timestamp, unit.isKeyframe, unit.isComplete, unit.nalUnits
            }
        }
        pipeline.finish()
        while let unit = pipeline.nextAccessUnit() { units.append(unit) }
        return units
    }

    /// "Decoding": the newest frame of those units, as a consumer running at its own pace would take it.
    static func latestFrame(of units: [AccessUnit], parameterSets: ParameterSets?) throws -> (I420Frame?, Int) {
        let decoder = try FFmpegVideoDecoder(codec: .h264, parameterSets: parameterSets)
        let latest = LatestFrameSink()
        for unit in units {
            try decoder.decode(unit) { frame in latest.push(frame) }
        }
        // elsewhere, e.g. on a WebRTC capturer's tick:
        let frame = latest.take()  // frame.y, frame.u, frame.v, frame.timestamp, frame.mayBeDamaged
        return (frame, latest.droppedFrames + latest.deliveredFrames)  // every frame pushed
    }
}
