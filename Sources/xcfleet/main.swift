import XCFleetKit
print("xcfleet")
