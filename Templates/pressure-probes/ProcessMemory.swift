import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// C9: the process's memory as the platform reports it — Darwin `phys_footprint`
/// (task_info TASK_VM_INFO), Linux resident pages from `/proc/self/statm` × page size.
/// Diagnostics only; `nil` when the platform does not answer.
enum ProcessMemory {
    #if canImport(Darwin)
    /// The label value of the `source=` metric label.
    static let source = "phys_footprint"

    static func currentBytes() -> Int64? {
        // `mach_task_self_` is a C global that older SDKs do not mark concurrency-safe (a Swift 6
        // error); ask the kernel for the task port and drop the extra reference afterwards.
        let taskPort = task_self_trap()
        defer { mach_port_deallocate(taskPort, taskPort) }
        var info = task_vm_info_data_t()
        var count = mach_msg_type_number_t(MemoryLayout<task_vm_info_data_t>.size / MemoryLayout<integer_t>.size)
        let status = withUnsafeMutablePointer(to: &info) { pointer in
            pointer.withMemoryRebound(to: integer_t.self, capacity: Int(count)) { raw in
                task_info(taskPort, task_flavor_t(TASK_VM_INFO), raw, &count)
            }
        }
        guard status == KERN_SUCCESS else { return nil }
        return Int64(clamping: info.phys_footprint)
    }
    #else
    /// The label value of the `source=` metric label.
    static let source = "statm"

    static func currentBytes() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let residentPages = Int64(fields[1]) else { return nil }
        let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
        guard pageSize > 0 else { return nil }
        let (bytes, overflow) = residentPages.multipliedReportingOverflow(by: pageSize)
        return overflow ? nil : bytes
    }
    #endif
}
