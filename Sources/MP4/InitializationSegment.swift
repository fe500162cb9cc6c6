/// The start of every fragmented MP4 file (and an MSE initialization segment): `ftyp`, then a `moov`
/// whose tracks have a sample entry each and no samples, with `mvex` saying the samples come in fragments.
enum InitializationSegment {
    /// The segment for `tracks`, each by its ID (1, 2, ...) and its sample description.
    static func bytes(tracks: [(id: UInt32, description: SampleDescription)]) -> [UInt8] {
        var writer = BoxWriter(reservingCapacity: 1024)
        writer.box("ftyp") { box in
            box.fourCC("iso6")
            box.u32(0)
            for brand: StaticString in ["iso6", "iso5", "isom", "mp41"] { box.fourCC(brand) }
        }
        writer.box("moov") { moov in
            moov.fullBox("mvhd") { box in
                box.u32(0)  // creation_time
                box.u32(0)  // modification_time
                box.u32(1000)  // timescale
                box.u32(0)  // duration: in the fragments
                box.u32(0x0001_0000)  // rate 1.0
                box.u16(0x0100)  // volume 1.0
                box.zeros(10)
                box.unityMatrix()
                box.zeros(24)  // pre_defined
                box.u32((tracks.map(\.id).max() ?? 0) + 1)  // next_track_ID
            }
            for track in tracks { trak(track.id, track.description, into: &moov) }
            moov.box("mvex") { mvex in
                for track in tracks {
                    mvex.fullBox("trex") { box in
                        box.u32(track.id)
                        box.u32(1)  // default_sample_description_index
                        box.u32(0)  // default_sample_duration
                        box.u32(0)  // default_sample_size
                        box.u32(0)  // default_sample_flags
                    }
                }
            }
        }
        return writer.bytes
    }

    private static func trak(_ id: UInt32, _ description: SampleDescription, into writer: inout BoxWriter) {
        writer.box("trak") { trak in
            trak.fullBox("tkhd", flags: 3) { box in  // enabled, in the movie
                box.u32(0)
                box.u32(0)
                box.u32(id)
                box.u32(0)
                box.u32(0)  // duration
                box.zeros(8)
                box.u16(0)  // layer
                box.u16(0)  // alternate_group
                box.u16(description.isVideo ? 0 : 0x0100)  // volume
                box.u16(0)
                box.unityMatrix()
                if case .video(let width, let height) = description.media {
                    box.u32(UInt32(clamping: width) << 16)
                    box.u32(UInt32(clamping: height) << 16)
                } else {
                    box.u32(0)
                    box.u32(0)
                }
            }
            trak.box("mdia") { mdia in
                mdia.fullBox("mdhd") { box in
                    box.u32(0)
                    box.u32(0)
                    box.u32(UInt32(clamping: description.timescale))
                    box.u32(0)  // duration
                    box.u16(0x55C4)  // language "und"
                    box.u16(0)
                }
                mdia.fullBox("hdlr") { box in
                    box.u32(0)
                    box.fourCC(description.isVideo ? "vide" : "soun")
                    box.zeros(12)
                    box.append(Array((description.isVideo ? "VideoHandler" : "SoundHandler").utf8) + [0])
                }
                mdia.box("minf") { minf in
                    if description.isVideo {
                        minf.fullBox("vmhd", flags: 1) { $0.zeros(8) }
                    } else {
                        minf.fullBox("smhd") { $0.zeros(4) }
                    }
                    minf.box("dinf") { dinf in
                        dinf.fullBox("dref") { dref in
                            dref.u32(1)
                            dref.fullBox("url ", flags: 1) { _ in }  // the data is in this file
                        }
                    }
                    minf.box("stbl") { stbl in
                        stbl.fullBox("stsd") { stsd in
                            stsd.u32(1)
                            stsd.append(description.entry)
                        }
                        stbl.fullBox("stts") { $0.u32(0) }
                        stbl.fullBox("stsc") { $0.u32(0) }
                        stbl.fullBox("stsz") { box in
                            box.u32(0)
                            box.u32(0)
                        }
                        stbl.fullBox("stco") { $0.u32(0) }
                    }
                }
            }
        }
    }
}
