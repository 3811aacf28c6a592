/// A bounded stack of books: the code under test of the fixture.
public struct Shelf: Sendable {
    public private(set) var books: [String] = []
    public let capacity: Int

    public init(capacity: Int) { self.capacity = capacity }

    /// Adds a book on top; false when the shelf is full.
    @discardableResult
    public mutating func put(_ book: String) -> Bool {
        guard books.count < capacity else { return false }
        books.append(book)
        return true
    }

    /// Takes the top book off.
    public mutating func take() -> String? { books.popLast() }

    public var isFull: Bool { books.count >= capacity }
}
