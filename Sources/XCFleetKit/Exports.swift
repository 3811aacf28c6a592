// XCFleetKit is the façade the executable, the benchmarks and the fuzz targets import: the I/O
// layer on top, with the layers below it re-exported (docs/architecture.md).
@_exported import XCFleetBasics
@_exported import XCFleetModel
@_exported import XCFleetCore
@_exported import XCFleetHostScripts
