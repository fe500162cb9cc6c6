// Header values as cameras write them: blanks and tabs around them are theirs, not the value's.

extension String {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}

extension Substring {
    func trimmingCharacters() -> String { String(self).trimmingCharacters() }
}
