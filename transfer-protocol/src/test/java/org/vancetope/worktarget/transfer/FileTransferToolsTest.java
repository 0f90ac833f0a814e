package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/** The Brain tools over a threaded in-memory pair with the codec in the loop. */
class FileTransferToolsTest {
    private static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "proj", "alice");
    private TransferFixture fx;
    private Optional<TransferConnection> connected;
    private BackendTool upload;
    private BackendTool download;

    @BeforeEach
    void setUp() throws Exception {
        fx = new TransferFixture(Configuration.unix(), TransferSettings.defaults(), 16, true);
        connected = Optional.of(fx.brainConn);
        FileTransferTools tools = new FileTransferTools(
                new RootDirTargetResolver((scope, dir) -> Optional.ofNullable(fx.rootDirs.get(dir))),
                ctx -> ctx.sessionId().equals("s1") ? connected : Optional.empty());
        upload = tools.tools().get(0);
        download = tools.tools().get(1);
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private static Map<String, Object> params(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void toolNamesAndRequiredParametersFollowTheSpec() {
        assertThat(upload.spec().name()).isEqualTo("client_file_upload");
        assertThat(upload.spec().requiredParameters()).containsExactly("localPath", "dirName", "remotePath");
        assertThat(download.spec().name()).isEqualTo("client_file_download");
        assertThat(download.spec().parameterNames()).containsExactly("dirName", "remotePath", "localPath", "attrs", "resumeId");
    }

    @Test
    void downloadReturnsOkBytesWrittenAndHash() throws Exception {
        byte[] data = TransferFixture.randomBytes(150_000, 21);
        fx.brainFile("reports", "2026-q2.pdf", data);
        Map<String, Object> r = download.invoke(params("dirName", "reports", "remotePath", "2026-q2.pdf",
                "localPath", "reports/2026-q2.pdf"), CTX);
        assertThat(r).containsEntry("ok", true).containsEntry("bytesWritten", 150_000L).doesNotContainKey("error");
        assertThat((String) r.get("hash")).startsWith("sha256:");
        assertThat(Files.readAllBytes(fx.footProject.resolve("reports/2026-q2.pdf"))).isEqualTo(data);
    }

    @Test
    void uploadReturnsOkAndTheFileIsInTheRootDir() throws Exception {
        fx.footFile("sounds/test.wav", "RIFF....".getBytes());
        Map<String, Object> r = upload.invoke(params("localPath", "sounds/test.wav", "dirName", "uploads",
                "remotePath", "test.wav", "attrs", Map.of("mode", "0600")), CTX);
        assertThat(r).containsEntry("ok", true).containsEntry("bytesWritten", 8L);
        assertThat(Files.readString(fx.rootDirs.get("uploads").resolve("test.wav"))).isEqualTo("RIFF....");
    }

    @Test
    void uploadIntoAMissingDirNameFailsBeforeAnythingIsSent() throws Exception {
        fx.footFile("a.txt", "a".getBytes());
        Map<String, Object> r = upload.invoke(params("localPath", "a.txt", "dirName", "nope", "remotePath", "a.txt"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "not_found");
        assertThat((String) r.get("error")).startsWith("dirName not found: 'nope' is not a RootDir of this project")
                .contains("workspace_create_ephemeral_dir");
        assertThat(fx.pair.left().sentCount()).isZero();
    }

    @Test
    void downloadFromAMissingDirNameFailsBeforeAnythingIsSent() throws Exception {
        Map<String, Object> r = download.invoke(params("dirName", "nope", "remotePath", "a", "localPath", "a"), CTX);
        assertThat(r).containsEntry("ok", false);
        assertThat((String) r.get("error")).startsWith("dirName not found: 'nope'");
        assertThat(fx.pair.left().sentCount()).isZero();
    }

    @Test
    void uploadToAPathOutsideTheRootDirFailsBeforeAnythingIsSent() throws Exception {
        Map<String, Object> r = upload.invoke(params("localPath", "a.txt", "dirName", "uploads",
                "remotePath", "../reports/x"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("error", ConfinedRoot.escape("../reports/x").getMessage())
                .containsEntry("code", "path_escape");
        assertThat(fx.pair.left().sentCount()).isZero();
    }

    @Test
    void uploadToANameWithTheReplacementCharacterFailsBeforeAnythingIsSent() throws Exception {
        // listings show U+FFFD for bytes of a name that are not UTF-8: writing to it would make a look-alike twin
        fx.footFile("a.txt", "a".getBytes());
        Map<String, Object> r = upload.invoke(params("localPath", "a.txt", "dirName", "uploads",
                "remotePath", "caf\uFFFD.txt"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "invalid_params");
        assertThat((String) r.get("error")).startsWith("Parameter 'remotePath' 'caf\uFFFD.txt' contains U+FFFD")
                .contains("Nothing was written");
        assertThat(fx.pair.left().sentCount()).isZero();
        assertThat(fx.rootDirs.get("uploads").resolve("caf\uFFFD.txt")).doesNotExist();
    }

    @Test
    void uploadToAPathThatNamesADirectoryFailsBeforeAnythingIsSent() throws Exception {
        fx.footFile("a.txt", "a".getBytes());
        Map<String, Object> r = upload.invoke(params("localPath", "a.txt", "dirName", "uploads",
                "remotePath", "reports/"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "invalid_params");
        assertThat((String) r.get("error")).startsWith("Parameter 'remotePath' 'reports/' names a directory")
                .contains("Pass the file's own path, e.g. 'reports/notes.txt'");
        assertThat(fx.pair.left().sentCount()).isZero();
        assertThat(fx.rootDirs.get("uploads").resolve("reports")).doesNotExist();
    }

    @Test
    void anEphemeralDirWithAPurposeLongerThanALabelIsRefusedAndNothingIsCreated() throws Exception {
        List<String> created = new ArrayList<>();
        BackendTool tool = FileTransferTools.ephemeralDirTool((ctx, purpose, deleteOnClose) -> {
            created.add(purpose);
            return "ephemeral-1";
        });
        String tooLong = "p".repeat(FileTransferTools.MAX_PURPOSE_CHARS + 1);
        assertThatThrownBy(() -> tool.invoke(params("purpose", tooLong), CTX)).isInstanceOf(ToolException.class)
                .hasMessage("Parameter 'purpose' has 257 characters, more than the 256 allowed: it is a short label kept "
                        + "with the RootDir, such as 'user-upload'. Nothing was created.");
        assertThat(created).isEmpty();
        String longest = "p".repeat(FileTransferTools.MAX_PURPOSE_CHARS);
        assertThat(tool.invoke(params("purpose", longest), CTX)).containsEntry("dirName", "ephemeral-1");
        assertThat(created).containsExactly(longest);
    }

    @Test
    void downloadOfAMissingFileFailsBeforeAnythingIsSent() throws Exception {
        Map<String, Object> r = download.invoke(params("dirName", "reports", "remotePath", "none.pdf",
                "localPath", "none.pdf"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("error", ConfinedRoot.notFound("none.pdf").getMessage());
        assertThat(fx.pair.left().sentCount()).isZero();
    }

    @Test
    void uploadOfAMissingClientFileReturnsTheClientsError() throws Exception {
        Map<String, Object> r = upload.invoke(params("localPath", "gone.wav", "dirName", "uploads",
                "remotePath", "gone.wav"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("error", ConfinedRoot.notFound("gone.wav").getMessage());
    }

    @Test
    void downloadRefusedByTheClientSandboxReturnsItsError() throws Exception {
        fx.brainFile("reports", "a.txt", "a".getBytes());
        Map<String, Object> r = download.invoke(params("dirName", "reports", "remotePath", "a.txt",
                "localPath", "../../escape.txt"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("error", ConfinedRoot.escape("../../escape.txt").getMessage());
    }

    @Test
    void noConnectedClientIsOffline() throws Exception {
        fx.brainFile("reports", "a.txt", "a".getBytes());
        connected = Optional.empty();
        assertThatThrownBy(() -> download.invoke(params("dirName", "reports", "remotePath", "a.txt", "localPath", "a"), CTX))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OFFLINE));
    }

    @Test
    void missingParameterIsInvalidParams() {
        assertThatThrownBy(() -> upload.invoke(params("dirName", "uploads", "remotePath", "a"), CTX))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
                    assertThat(e.getMessage()).contains("localPath");
                });
    }

    @Test
    void malformedAttrsAreInvalidParams() {
        for (Object attrs : List.of("0644", Map.of("mode", "rw-"), Map.of("mtime", "tomorrow"), Map.of("owner", "root"),
                Map.of("mode", 644))) {
            assertThatThrownBy(() -> download.invoke(params("dirName", "reports", "remotePath", "a", "localPath", "a",
                    "attrs", attrs), CTX))
                    .as(String.valueOf(attrs))
                    .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS));
        }
    }

    @Test
    void ephemeralDirToolReturnsTheCreatedDirName() throws Exception {
        List<String> calls = new ArrayList<>();
        BackendTool tool = FileTransferTools.ephemeralDirTool((ctx, purpose, deleteOnClose) -> {
            calls.add(ctx.processId() + ":" + purpose + ":" + deleteOnClose);
            return "eph-1";
        });
        assertThat(tool.spec().name()).isEqualTo("workspace_create_ephemeral_dir");
        assertThat(tool.invoke(params("purpose", "user-upload"), CTX)).isEqualTo(Map.of("dirName", "eph-1"));
        assertThat(tool.invoke(params("deleteOnCreatorClose", false), CTX)).containsEntry("dirName", "eph-1");
        assertThat(calls).containsExactly("p1:user-upload:true", "p1:null:false");
    }

    @Test
    void ephemeralDirToolPassesTheCreatorsErrorThrough() {
        BackendTool tool = FileTransferTools.ephemeralDirTool((ctx, purpose, deleteOnClose) -> {
            throw new ToolException(ErrorCode.BUDGET_EXCEEDED, "too many RootDirs");
        });
        assertThatThrownBy(() -> tool.invoke(params(), CTX)).isInstanceOfSatisfying(ToolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED));
    }
}
