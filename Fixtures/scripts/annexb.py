"""Annex B byte streams, for the fixture scripts: an independent splitter, not the library's."""


def split_annexb(data):
    """The NAL units between start codes (00 00 01, with any zero bytes before them dropped)."""
    nals, i, start = [], 0, None
    while i + 3 <= len(data):
        if data[i:i + 3] == b"\x00\x00\x01":
            if start is not None:
                nals.append(data[start:i].rstrip(b"\x00"))
            i += 3
            start = i
        else:
            i += 1
    if start is not None:
        nals.append(data[start:])
    return [n for n in nals if n]
