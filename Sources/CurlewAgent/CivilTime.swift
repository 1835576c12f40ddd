/// A moment in UTC as calendar fields (proleptic Gregorian), computed by arithmetic alone: the
/// session record writer dates every entry, and `gmtime_r` (a call into the C library that takes
/// its time-zone lock) cost more than the rest of the date.
struct CivilTime: Equatable {
    var year: Int
    /// 1 to 12.
    var month: Int
    /// 1 to 31.
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    /// The calendar fields of `secondsSince1970` (negative before 1970), from the days since
    /// 1970-01-01 counted in 400-year eras of 146,097 days, each era starting on a 1 March so
    /// that a leap day is the last day of its year.
    init(secondsSince1970 seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        hour = secondOfDay / 3_600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
        // Days since 0000-03-01.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        // Months from March: 0 is March, 11 is February.
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }
}
