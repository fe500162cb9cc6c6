import MP4

/// Reads the input as an MP4 file's index, with small limits (4 tracks, 5,000 samples a track, boxes of 1 MiB):
/// a file that lies about a size, a count or an offset gives an error, never a trap or a read past the bytes.
/// Checked on what is read: every sample lies inside the input; every keyframe lookup lands on a keyframe, at or
/// before the time asked when one is.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMP4Index(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = MP4Index.Limits(maxTracks: 4, maxSamplesPerTrack: 5000, maxHeaderBoxBytes: 1 << 20)
    guard let index = try? MP4Index(bytes: bytes, limits: limits) else { return 0 }
    for track in index.tracks {
        for sample in track.samples {
            precondition(sample.offset <= UInt64(size) && UInt64(sample.size) <= UInt64(size) - sample.offset)
        }
        for time in track.samples.prefix(50).map(\.presentationTime) + [Int64.min, 0, Int64.max] {
            guard let found = track.keyframe(atOrBefore: time) else {
                precondition(!track.samples.contains { $0.isSync })
                continue
            }
            precondition(track.samples[found].isSync)
            if track.samples.contains(where: { $0.isSync && $0.presentationTime <= time }) {
                precondition(track.samples[found].presentationTime <= time)
            }
        }
        _ = track.presentationRange
        if let anchor = index.wallClockAnchors.first {
            _ = index.wallClock(atMediaTime: anchor.mediaTime &+ 1000, track: anchor.trackID)?.description
        }
    }
    return 0
}
