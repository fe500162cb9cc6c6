import RTP

/// One fragment of a recording (ISO/IEC 14496-12 section 8.8): a `prft` when the sender's wall clock is
/// known, a `moof` with a `traf` per run of samples, and the `mdat` header; the samples' bytes follow from
/// each track's buffer, uncopied.
enum MediaFragment {
    /// Samples of one track with no gap between them: one `traf`.
    struct Run {
        let track: Int
        let trackID: UInt32
        let baseDecodeTime: Int64
        var durations: [Int64] = []
        var sizes: [Int] = []
        var syncs: [Bool] = []
        /// Presentation minus decode time, per sample (video; nil for audio, where they are equal).
        var offsets: [Int64]?
        /// The run's bytes in its track's buffer.
        var bytes: Range<Int>
    }

    static let syncSampleFlags: UInt32 = 0x0200_0000  // sample_depends_on 2: an I picture, or audio
    static let otherSampleFlags: UInt32 = 0x0101_0000  // sample_depends_on 1, sample_is_non_sync_sample

    /// The runs of a track's pending samples, with their decode times and durations. Video: one run, decode
    /// times the presentation times sorted (they are the same without B-frames), moved up to follow the
    /// previous fragment; the last sample lasts as the others usually do. Audio: a new run at each gap
    /// (frames lost), each sample as long as it plays.
    static func runs(of track: inout RecordedTrack, index: Int) -> [Run] {
        let samples = track.samples
        guard !samples.isEmpty else { return [] }
        if track.isVideo {
            let times = samples.map(\.time)
            var decode = track.isReordered ? times.sorted() : times
            // After the previous fragment, and strictly rising: pictures that share a timestamp (a sender's
            // mistake) still get a tick each, so that the decode times a player adds up are these.
            decode[0] = max(decode[0], track.nextDecodeTime)
            for i in decode.indices.dropFirst() { decode[i] = max(decode[i], decode[i - 1] + 1) }
            var durations = zip(decode, decode.dropFirst()).map { $1 - $0 }
            // The last picture lasts as the fragment's pictures usually do (the lower median, with the previous
            // fragment's last): a gap before it (a pause, a clock that jumped) is not counted again.
            var known = durations
            if track.lastDuration > 0 { known.append(track.lastDuration) }
            let last = known.isEmpty ? Int64(track.timescale / 30) : known.sorted()[(known.count - 1) / 2]
            durations.append(last)
            track.lastDuration = last
            track.nextDecodeTime = decode[decode.count - 1] + last
            var run = Run(track: index, trackID: track.id, baseDecodeTime: decode[0], bytes: 0..<track.data.count)
            run.durations = durations
            run.sizes = samples.map(\.size)
            run.syncs = samples.map(\.isSync)
            run.offsets = zip(times, decode).map { $0 - $1 }
            return [run]
        }
        var runs: [Run] = []
        var offset = 0
        for sample in samples {
            let start = max(sample.time, track.nextDecodeTime)
            let tolerance = max(1, sample.duration / 2)
            if runs.isEmpty || abs(sample.time - track.nextDecodeTime) > tolerance {
                runs.append(Run(track: index, trackID: track.id, baseDecodeTime: start, bytes: offset..<offset))
            }
            runs[runs.count - 1].durations.append(sample.duration)
            runs[runs.count - 1].sizes.append(sample.size)
            runs[runs.count - 1].syncs.append(true)
            offset += sample.size
            runs[runs.count - 1].bytes = runs[runs.count - 1].bytes.lowerBound..<offset
            track.nextDecodeTime = start + sample.duration
            track.lastDuration = sample.duration
        }
        return runs
    }

    /// Writes the fragment's boxes up to the `mdat`'s header into `writer`; returns where each run's data
    /// starts, relative to the `moof`.
    static func header(
        sequence: UInt32, runs: [Run], wallClock: (trackID: UInt32, time: Int64, wallClock: WallClockTime)?,
        into writer: inout BoxWriter
    ) {
        if let wallClock {
            writer.fullBox("prft", version: 1) { box in
                box.u32(wallClock.trackID)
                box.u64(wallClock.wallClock.ntp)
                box.u64(UInt64(max(0, wallClock.time)))
            }
        }
        let moofStart = writer.bytes.count
        var dataOffsetFields: [Int] = []
        writer.box("moof") { moof in
            moof.fullBox("mfhd") { $0.u32(sequence) }
            for run in runs {
                moof.box("traf") { traf in
                    traf.fullBox("tfhd", flags: 0x02_0000) { $0.u32(run.trackID) }  // default-base-is-moof
                    traf.fullBox("tfdt", version: 1) { $0.u64(UInt64(max(0, run.baseDecodeTime))) }
                    // data-offset, sample duration, size, flags (and composition time offset for video)
                    let flags: UInt32 = run.offsets == nil ? 0x701 : 0xF01
                    traf.fullBox("trun", version: 1, flags: flags) { trun in
                        trun.u32(UInt32(run.sizes.count))
                        dataOffsetFields.append(trun.bytes.count)
                        trun.u32(0)
                        for i in run.sizes.indices {
                            trun.u32(UInt32(clamping: run.durations[i]))
                            trun.u32(UInt32(clamping: run.sizes[i]))
                            trun.u32(run.syncs[i] ? syncSampleFlags : otherSampleFlags)
                            if let offsets = run.offsets {
                                trun.u32(UInt32(bitPattern: Int32(clamping: offsets[i])))
                            }
                        }
                    }
                }
            }
        }
        let moofSize = writer.bytes.count - moofStart
        var dataOffset = moofSize + 8
        for (field, run) in zip(dataOffsetFields, runs) {
            writer.patch32(at: field, UInt32(truncatingIfNeeded: dataOffset))
            dataOffset += run.bytes.count
        }
        writer.u32(UInt32(truncatingIfNeeded: dataOffset - moofSize))  // the mdat: its header and every run
        writer.fourCC("mdat")
    }
}
