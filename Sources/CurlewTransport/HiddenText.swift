/// What stands in for a secret Curlew does not show: a URL's or a proxy's password, a redacted
/// header or value.
public enum HiddenText {
    public static let marker = "[REDACTED]"
}
