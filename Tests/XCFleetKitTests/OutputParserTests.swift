import XCTest
@testable import XCFleetKit

final class OutputParserTests: XCTestCase {}
