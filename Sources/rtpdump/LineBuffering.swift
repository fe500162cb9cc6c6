#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    @preconcurrency import Darwin
#endif

/// Sends standard output line by line, to a pipe too (stdio buffers 4 KiB there): for a live session, whose
/// reader follows the camera rather than a buffer's worth behind it. Called once, before the first line.
func lineBufferStandardOutput() {
    setvbuf(stdout, nil, _IOLBF, 0)
}
