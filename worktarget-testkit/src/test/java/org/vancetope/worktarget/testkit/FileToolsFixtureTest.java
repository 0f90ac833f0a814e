package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;

class FileToolsFixtureTest {
    private static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "proj", "alice");

    @Test
    void aBackendWithoutEveryFileToolIsRefusedNamingTheMissingOnes(@TempDir Path dir) {
        List<BackendTool> onlyRead = List.of(BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
                (p, c) -> Map.of()));

        assertThatThrownBy(() -> FileToolsFixture.of(onlyRead, dir, CTX)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The backend under test has no tool for [", "file_write", "file_grep")
                .hasMessageNotContaining("file_read,").hasMessageContaining("Return all of them from createTools");
    }

    @Test
    void aBackendWithNoFileToolAtAllIsRefused(@TempDir Path dir) {
        assertThatThrownBy(() -> FileToolsFixture.of(List.of(), dir, CTX)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("file_read");
    }
}
