package org.vancetope.worktarget.backend.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

class LocalBackendTest {
    private static final ToolContext CTX = new ToolContext("p1", null, "acme", "proj", null);
    private FileSystem fs;
    private LocalBackend local;

    @BeforeEach
    void setUp() {
        fs = Jimfs.newFileSystem(Configuration.unix());
        local = LocalBackend.builder().workDirectory(fs.getPath("/home/me/work/")).build();
    }

    @AfterEach
    void tearDown() throws IOException {
        local.close();
        fs.close();
    }

    private Endpoint here() {
        return local.find(new SessionKey("acme", "s1")).orElseThrow();
    }

    @Test
    void offersTheSeventeenClientToolsWithoutDirName() {
        assertThat(local.tools()).extracting(t -> t.spec().name()).containsExactly("client_file_read",
                "client_file_write", "client_file_edit", "client_file_list", "client_file_find", "client_file_grep",
                "client_file_head_tail", "client_file_count", "client_file_delete", "client_file_move",
                "client_file_mkdir", "client_file_stat", "client_file_tree", "client_exec_run",
                "client_exec_status", "client_exec_tail", "client_exec_kill");
        assertThat(local.tools()).allSatisfy(t -> assertThat(t.spec().parameterNames()).doesNotContain("dirName"));
    }

    @Test
    void isTheConnectedClientOfEverySessionAndHasNoDaemons() {
        assertThat(local.find(new SessionKey("acme", "s1"))).isPresent();
        assertThat(local.find(new SessionKey("other", "s9"))).isPresent();
        assertThat(local.find(new DaemonKey("acme", "proj", "box"))).isEmpty();
        assertThat(local.onlineDaemons("acme", "proj")).isEmpty();
    }

    @Test
    void createsAndCanonicalisesTheWorkDirectory() {
        assertThat(local.workDirectory()).isEqualTo(fs.getPath("/home/me/work"));
        assertThat(Files.isDirectory(local.workDirectory())).isTrue();
    }

    @Test
    void invokeRunsTheNamedTool() throws Exception {
        here().invoke("client_file_write", Map.of("path", "a.txt", "content", "x"), CTX, Duration.ZERO);
        assertThat(Files.readString(fs.getPath("/home/me/work/a.txt"))).isEqualTo("x");
    }

    @Test
    void invokeOfAnUnknownToolIsUnknownTool() {
        assertThatThrownBy(() -> here().invoke("client_file_upload", Map.of(), CTX, Duration.ZERO))
                .isInstanceOf(ToolException.class)
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.UNKNOWN_TOOL);
    }

    @Test
    void manifestListsTheSeventeenClientTools() {
        assertThat(here().manifest()).extracting(org.vancetope.worktarget.spi.ToolSpec::name)
                .containsExactlyElementsOf(org.vancetope.worktarget.core.ToolCatalog.backendTools().stream()
                        .map(org.vancetope.worktarget.spi.ToolSpec::name).filter(n -> n.startsWith("client_")).toList());
    }

    @Test
    void missingWorkDirectoryIsRejectedByBuild() {
        assertThatThrownBy(() -> LocalBackend.builder().build()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void dispatcherRoutesClientCallsHereByDefault() throws Exception {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p1").tenant("acme").project("proj").session("s1").user("me").add();
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).peers(local).build();
        d.invoke("p1", "file_write", Map.of("path", "notes.md", "content", "# hi"));
        Path written = fs.getPath("/home/me/work/notes.md");
        assertThat(Files.readString(written)).isEqualTo("# hi");
        assertThat(d.invoke("p1", "file_read", Map.of("path", "notes.md")).get("content")).isEqualTo("# hi");
    }

    @Test
    void aCallOnAClosedBackendFailsSayingItIsClosed() throws Exception {
        here().invoke("client_file_write", Map.of("path", "a.txt", "content", "x"), CTX, Duration.ZERO);
        local.close();

        assertThatThrownBy(() -> here().invoke("client_file_read", Map.of("path", "a.txt"), CTX, Duration.ZERO))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
                    assertThat(e.getMessage()).contains("local backend is closed", "LocalBackend.close()");
                });
        assertThatThrownBy(() -> here().invoke("client_exec_run", Map.of("command", "true"), CTX, Duration.ZERO))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("closed"));
    }
}
