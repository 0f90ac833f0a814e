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

    @Test
    void aStringWithAnUnpairedSurrogateIsRefusedNamingWhereItIs() {
        ToolSpec write = ToolCatalog.wrapper("file_write").orElseThrow();
        ToolSpec clientWrite = ToolCatalog.backend("client_file_write").orElseThrow();
        assertThatThrownBy(() -> ParameterGuard.check(write, clientWrite, Map.of("path", "a.txt", "content",
                "ok\uD800x"), "here"))
                .hasMessage("Parameter 'content' of file_write holds an unpaired UTF-16 surrogate (\\uD800 at "
                        + "character 2): half of a character, which no file, command or name can hold (written as "
                        + "UTF-8 it would become '?'). Nothing was done. Send the text again with that character "
                        + "whole: both halves of its surrogate pair, or the character itself.")
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(((ToolException) e).code())
                        .isEqualTo(ErrorCode.INVALID_PARAMS));
        assertThatThrownBy(() -> ParameterGuard.check(write, clientWrite, Map.of("path", "\uDC00.txt", "content", "x"),
                "here")).hasMessageStartingWith("Parameter 'path' of file_write holds an unpaired UTF-16 surrogate "
                + "(\\uDC00 at character 0)");
    }

    @Test
    void nestedStringsAndKeysAreCheckedAndNamedByTheirPath() {
        ToolSpec run = ToolCatalog.wrapper("exec_run").orElseThrow();
        ToolSpec workRun = ToolCatalog.backend("work_exec_run").orElseThrow();
        assertThatThrownBy(() -> ParameterGuard.check(run, workRun, Map.of("command", "env", "env",
                Map.of("A", "x\uD83D")), "here")).hasMessageStartingWith("Parameter 'env.A' of exec_run");
        assertThatThrownBy(() -> ParameterGuard.check(run, workRun, Map.of("command", "env", "env",
                Map.of("B\uDE00", "x")), "here")).hasMessageStartingWith("A key of parameter 'env' of exec_run");
        ToolSpec edit = ToolCatalog.wrapper("file_edit").orElseThrow();
        ToolSpec clientEdit = ToolCatalog.backend("client_file_edit").orElseThrow();
        assertThatThrownBy(() -> ParameterGuard.check(edit, clientEdit, Map.of("path", "a", "edits", java.util.List.of(
                Map.of("oldText", "a", "newText", "b"), Map.of("oldText", "c", "newText", "\uDBFF"))), "here"))
                .hasMessageStartingWith("Parameter 'edits[1].newText' of file_edit");
    }

    @Test
    void wholeSurrogatePairsAndOtherTextPass() {
        ToolSpec write = ToolCatalog.wrapper("file_write").orElseThrow();
        ToolSpec clientWrite = ToolCatalog.backend("client_file_write").orElseThrow();
        assertThatCode(() -> ParameterGuard.check(write, clientWrite, Map.of("path", "emoji-\uD83D\uDE00.txt",
                "content", "\uD83D\uDE00 caf\u00e9 \uFFFD \u0000"), "here")).doesNotThrowAnyException();
        org.assertj.core.api.Assertions.assertThat(ParameterGuard.unpairedSurrogate("\uD83D\uDE00\uD83D")).isEqualTo(2);
        org.assertj.core.api.Assertions.assertThat(ParameterGuard.unpairedSurrogate("\uDE00\uD83D")).isZero();
        org.assertj.core.api.Assertions.assertThat(ParameterGuard.unpairedSurrogate("")).isEqualTo(-1);
    }
}
