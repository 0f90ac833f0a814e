package org.vancetope.worktarget.core.internal;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

class ParameterGuardTest {
    private static final ToolSpec WRAPPER = ToolCatalog.wrapper("file_read").orElseThrow();
    private static final ToolSpec CLIENT = ToolCatalog.backend("client_file_read").orElseThrow();

    @Test
    void declaredParametersPass() {
        assertThatCode(() -> ParameterGuard.check(WRAPPER, CLIENT, Map.of("path", "a"), "the CLIENT backend"))
                .doesNotThrowAnyException();
    }

    @Test
    void anUnknownParameterIsRefusedListingTheAcceptedOnes() {
        assertThatThrownBy(() -> ParameterGuard.check(WRAPPER, CLIENT, Map.of("path", "a", "pth", "b"), "here"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("Unknown parameter 'pth' for file_read").hasMessageContaining("path")
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(((ToolException) e).code())
                        .isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void aWrapperParameterThisBackendIgnoresIsRefusedNamingTheBackend() {
        assertThatThrownBy(() -> ParameterGuard.check(WRAPPER, CLIENT, Map.of("path", "a", "dirName", "src"),
                "the CLIENT backend (client_file_read)"))
                .hasMessageContaining("'dirName' of file_read is not supported by the CLIENT backend (client_file_read)");
    }

    @Test
    void aMissingRequiredParameterIsRefused() {
        // file_read takes path or paths, so neither is required there; file_write requires path and content
        ToolSpec write = ToolCatalog.wrapper("file_write").orElseThrow();
        ToolSpec clientWrite = ToolCatalog.backend("client_file_write").orElseThrow();
        assertThatThrownBy(() -> ParameterGuard.check(write, clientWrite, Map.of("content", "x"), "here"))
                .hasMessageContaining("Missing required parameter 'path' for file_write");
    }
}
