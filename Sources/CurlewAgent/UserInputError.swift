/// A value a user typed that cannot be used, with a message naming the field.
public struct UserInputError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
