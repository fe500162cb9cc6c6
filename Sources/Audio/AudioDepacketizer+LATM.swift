import RTP

/// AAC in RFC 6416's `MP4A-LATM`: each RTP payload holds AudioMuxElements, or a piece of one (the marker
/// bit is set on the packet that ends one). An element is its frames' lengths and bytes, after its
/// StreamMuxConfig when that travels in band (`cpresent=1`).
extension AudioDepacketizer {
    mutating func latm(_ packet: RTPPacket, timestamp: UInt64) {
        if let pieces = latmPieces, pieces.timestamp != timestamp {
            statistics.droppedFrames += 1  // an element whose last piece never came
            latmPieces = nil
        }
        if latmPieces == nil, droppedFragment == timestamp {  // the rest of an element already left out
            if packet.marker { droppedFragment = nil }
            return
        }
        if !packet.marker {
            var pieces = latmPieces ?? (timestamp, [])
            latmPieces = nil
            guard pieces.bytes.count + packet.payload.count <= Self.maxFrameSize else {
                return statistics.droppedFrames += 1
            }
            pieces.bytes.append(contentsOf: packet.payload)
            latmPieces = pieces
            return
        }
        if var pieces = latmPieces {
            latmPieces = nil
            pieces.bytes.append(contentsOf: packet.payload)
            audioMuxElements(pieces.bytes[...], timestamp: timestamp, ssrc: packet.ssrc)
        } else {
            audioMuxElements(packet.payload, timestamp: timestamp, ssrc: packet.ssrc)
        }
    }

    /// The frames of the AudioMuxElements in `data`, the first at `timestamp`, each next one a frame later.
    private mutating func audioMuxElements(_ data: ArraySlice<UInt8>, timestamp: UInt64, ssrc: UInt32) {
        var reader = BitReader(data)
        var time = timestamp
        while reader.remaining >= 8 {
            if format.muxConfigPresent && !reader.flag() {  // useSameStreamMux == 0: a StreamMuxConfig follows
                do throws(AudioError) {
                    let config = try StreamMuxConfig(reading: &reader)
                    if config != muxConfig {
                        muxConfig = config
                        audioSpecificConfig = config.audio
                        updateFrameTicks()
                    }
                } catch {
                    return statistics.malformedPackets += 1
                }
            }
            guard let config = muxConfig else { return statistics.malformedPackets += 1 }  // none yet to read by
            for _ in 0..<config.framesPerElement {
                var length = 0
                var byte: UInt32 = 255
                while byte == 255, !reader.isPastEnd {
                    byte = reader.read(8)
                    length += Int(byte)
                }
                guard length <= reader.remaining / 8, !reader.isPastEnd else { return statistics.malformedPackets += 1 }
                let bytes: ArraySlice<UInt8>
                if reader.position % 8 == 0 {  // byte-aligned (cpresent=0): a view, no copy
                    let start = data.startIndex + reader.position / 8
                    bytes = data[start..<start + length]
                } else {
                    bytes = reader.bits(from: reader.position, to: reader.position + length * 8)[...]
                }
                reader.skip(length * 8)
                emit(timestamp: time, samples: frameSamples, bytes: bytes, ssrc: ssrc)
                time &+= UInt64(aacFrameTicks)
            }
            reader.skip(config.otherDataBits)
            reader.align()
        }
    }
}
