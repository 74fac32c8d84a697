import Testing
import Pipeline

@Test func reportsLibraryVersions() {
    #expect(PipelineInfo.libraryVersions.contains("hiredis 0.14.1"))
}
