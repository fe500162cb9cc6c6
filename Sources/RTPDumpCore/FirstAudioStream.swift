import Audio
import MediaPipeline
import PacketCapture
import RTP
import SDP

extension CaptureMediaStreams {
    /// Reads `source` to its end and gives `body` each frame of the first stream of `format` the filter admits,
    /// with the AAC configuration its depacketizer holds (the fmtp's, or LATM's that came in band): what
    /// `extract` and `decode` read of audio. Frames are handed on once the item that completed them has been
    /// taken in. After `body` throws, the rest is read and not given, and the error is thrown at the end.
    ///
    /// - Returns: the stream given, and what ended the input early (a capture cut short), if anything.
    /// - Throws: ``RTPDumpError`` when the format's configuration cannot be read; `body`'s error.
    package static func firstAudioStream<Source: ReceivedItemSource>(
        of source: inout Source, format: AudioFormat, filter: StreamFilter, followsFlows: Bool,
        _ body: (AudioFrame, _ configuration: AudioSpecificConfig?) throws -> Void
    ) throws -> (stream: StreamKey?, inputFailure: (any Error)?) {
        var streams: CaptureMediaStreams
        do {
            streams = try CaptureMediaStreams.only(.audio(format), filter: filter, followsFlows: followsFlows)
        } catch {
            throw RTPDumpError("\(error)")
        }
        var chosen: StreamKey?
        // Asked once, with the chosen stream's first frame: LATM's in-band configuration comes before its
        // first frame, and the other codecs have none to ask for.
        var configuration: AudioSpecificConfig?
        var asked = false
        var failure: (any Error)?
        // `streams` cannot be asked for its depacketizer's configuration while it adds: frames wait here.
        var batch: [(StreamKey, AudioFrame)] = []
        func take(_ key: StreamKey, _ unit: MediaUnit) {
            if case .audio(let frame) = unit { batch.append((key, frame)) }
        }
        func handOn() {
            defer { batch.removeAll(keepingCapacity: true) }
            for (key, frame) in batch where failure == nil {
                chosen = chosen ?? key
                guard key == chosen else { continue }
                if !asked {
                    configuration =
                        streams.depacketizers.first { $0.stream == key }?.depacketizer.audio?
                        .audioSpecificConfig
                    asked = true
                }
                do { try body(frame, configuration) } catch { failure = error }
            }
        }
        let inputFailure = RTPDumpCore.failure {
            try source.forEachItem { item in
                streams.add(consume item, units: take)
                if !batch.isEmpty { handOn() }
            }
        }
        streams.finish(units: take)
        handOn()
        if let failure { throw failure }
        return (chosen, inputFailure)
    }
}
