import Foundation

/// HTTP's date format (RFC 9110's IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT"), for
/// `Retry-After`. Parsed by hand: it is network input, and the format is fixed.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,"]

    static func parse(_ text: String) -> Date? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6, weekdays.contains(String(fields[0])), fields[5] == "GMT",
              fields[1].count == 2, let day = Int(fields[1]), (1...31).contains(day),
              let monthIndex = months.firstIndex(of: String(fields[2])),
              fields[3].count == 4, let year = Int(fields[3]), year >= 1970 else { return nil }
        let time = fields[4].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, time.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
              let hour = Int(time[0]), (0...23).contains(hour), let minute = Int(time[1]), (0...59).contains(minute),
              let second = Int(time[2]), (0...60).contains(second) else { return nil }
        let days = daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
