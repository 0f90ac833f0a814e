package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/** The directory tools client_dir_upload and client_dir_download over a threaded in-memory pair with the codec. */
class DirectoryTransferToolsTest {
    private static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "proj", "alice");
    private TransferFixture fx;
    private Optional<TransferConnection> connected;
    private BackendTool upload;
    private BackendTool download;

    @BeforeEach
    void setUp() throws Exception {
        fx = new TransferFixture(Configuration.unix(), TransferSettings.defaults(), 16, true,
                Set.of(TransferCapability.DIRECTORY, TransferCapability.HASH_TRAILER));
        connected = Optional.of(fx.brainConn);
        List<BackendTool> tools = new FileTransferTools(
                new RootDirTargetResolver((scope, dir) -> Optional.ofNullable(fx.rootDirs.get(dir))),
                ctx -> ctx.sessionId().equals("s1") ? connected : Optional.empty()).tools();
        upload = tools.get(2);
        download = tools.get(3);
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
    void toolNamesAndParametersFollowTheSingleFileTools() {
        assertThat(upload.spec().name()).isEqualTo(FileTransferTools.DIR_UPLOAD).isEqualTo("client_dir_upload");
        assertThat(upload.spec().parameterNames()).containsExactly("localPath", "dirName", "remotePath", "overwrite");
        assertThat(upload.spec().requiredParameters()).containsExactly("localPath", "dirName", "remotePath");
        assertThat(download.spec().name()).isEqualTo("client_dir_download");
        assertThat(download.spec().parameterNames()).containsExactly("dirName", "remotePath", "localPath", "overwrite");
        assertThat(download.spec().labels()).isEqualTo(FileTransferTools.DOWNLOAD_SPEC.labels());
    }

    @Test
    void aDownloadReturnsEveryEntry() throws Exception {
        fx.brainFile("reports", "q2/a.txt", "a".getBytes());
        fx.brainFile("reports", "q2/sub/b.txt", "bb".getBytes());
        Map<String, Object> r = download.invoke(params("dirName", "reports", "remotePath", "q2", "localPath", "got"), CTX);
        assertThat(r).containsEntry("ok", true).containsEntry("filesWritten", 2).containsEntry("bytesWritten", 3L);
        assertThat((List<?>) r.get("entries")).hasSize(3);
        assertThat(Files.readString(fx.footProject.resolve("got/sub/b.txt"))).isEqualTo("bb");
    }

    @Test
    void anUploadWithOverwriteReplacesExistingFiles() throws Exception {
        fx.footFile("src/a.txt", "new".getBytes());
        Files.createDirectories(fx.rootDirs.get("uploads").resolve("dst"));
        Files.writeString(fx.rootDirs.get("uploads").resolve("dst/a.txt"), "old");
        Map<String, Object> r = upload.invoke(params("localPath", "src", "dirName", "uploads", "remotePath", "dst",
                "overwrite", true), CTX);
        assertThat(r).containsEntry("ok", true);
        assertThat(Files.readString(fx.rootDirs.get("uploads").resolve("dst/a.txt"))).isEqualTo("new");
    }

    @Test
    void aDirectoryTransferOfAFileSaysItIsAFileNotThatItDoesNotExist() throws Exception {
        fx.footFile("one", "a".getBytes());
        fx.brainFile("reports", "one", "b".getBytes());

        Map<String, Object> up = upload.invoke(params("localPath", "one", "dirName", "uploads", "remotePath", "x"), CTX);
        Map<String, Object> down = download.invoke(params("dirName", "reports", "remotePath", "one", "localPath", "y"),
                CTX);

        for (Map<String, Object> r : List.of(up, down)) {
            assertThat(r).containsEntry("ok", false).containsEntry("code", "invalid_params");
            assertThat((String) r.get("error")).isEqualTo("'one' is a file, not a directory; a directory transfer "
                    + "sends a whole directory tree. Send one file with client_file_upload or client_file_download.");
        }
        assertThat(fx.rootDirs.get("uploads").resolve("x")).doesNotExist();
        assertThat(fx.footProject.resolve("y")).doesNotExist();
    }

    @Test
    void anUploadIntoAMissingDirNameFailsBeforeAnythingIsSent() throws Exception {
        Map<String, Object> r = upload.invoke(params("localPath", "src", "dirName", "nope", "remotePath", "x"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "not_found").containsEntry("entries", List.of());
        assertThat(fx.pair.left().sentCount()).isZero();
    }

    @Test
    void anUploadToAPathOutsideTheRootDirFailsBeforeAnythingIsSent() throws Exception {
        Map<String, Object> r = upload.invoke(params("localPath", "src", "dirName", "uploads",
                "remotePath", "../reports"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "path_escape")
                .containsEntry("error", ConfinedRoot.escape("../reports").getMessage());
        assertThat(fx.pair.left().sentCount()).isZero();
    }

    @Test
    void anUploadToANameWithTheReplacementCharacterFailsBeforeAnythingIsSent() throws Exception {
        fx.footFile("src/a.txt", "a".getBytes());
        Map<String, Object> r = upload.invoke(params("localPath", "src", "dirName", "uploads",
                "remotePath", "d\uFFFDr"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "invalid_params")
                .containsEntry("entries", List.of());
        assertThat((String) r.get("error")).startsWith("Parameter 'remotePath' 'd\uFFFDr' contains U+FFFD");
        assertThat(fx.pair.left().sentCount()).isZero();
        assertThat(fx.rootDirs.get("uploads").resolve("d\uFFFDr")).doesNotExist();
    }

    @Test
    void anUploadBelowAFileOfTheRootDirNamesTheFileBeforeAnythingIsSent() throws Exception {
        fx.footFile("src/a.txt", "a".getBytes());
        Files.writeString(fx.rootDirs.get("uploads").resolve("plain.txt"), "p");
        Map<String, Object> r = upload.invoke(params("localPath", "src", "dirName", "uploads",
                "remotePath", "plain.txt/in"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "invalid_params")
                .containsEntry("error", "Cannot create directory 'plain.txt/in': 'plain.txt' is a file, not a directory.");
        assertThat(fx.pair.left().sentCount()).isZero();
    }

    @Test
    void aDownloadOfAMissingDirectoryFailsBeforeAnythingIsSent() throws Exception {
        Map<String, Object> r = download.invoke(params("dirName", "reports", "remotePath", "none", "localPath", "x"), CTX);
        assertThat(r).containsEntry("ok", false).containsEntry("code", "not_found");
        assertThat(fx.pair.left().sentCount()).isZero();
    }

    @Test
    void aDownloadOfAFileInsteadOfADirectoryIsRefused() throws Exception {
        fx.brainFile("reports", "a.txt", "a".getBytes());
        Map<String, Object> r = download.invoke(params("dirName", "reports", "remotePath", "a.txt", "localPath", "x"), CTX);
        assertThat(r).containsEntry("ok", false);
        assertThat(fx.pair.left().sentCount()).isZero();
    }

    @Test
    void noConnectedClientIsOffline() {
        connected = Optional.empty();
        assertThatThrownBy(() -> download.invoke(params("dirName", "reports", "remotePath", ".", "localPath", "x"), CTX))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OFFLINE));
    }
}
