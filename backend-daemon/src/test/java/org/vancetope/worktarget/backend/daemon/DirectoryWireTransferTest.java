package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/** client_dir_upload / client_dir_download over real loopback WebSockets, to a daemon, with every capability. */
class DirectoryWireTransferTest {
    private static final String ODD_NAME = "rapport final – été 日本.txt";

    @TempDir
    Path base;

    private TransferServerFixture server;
    private WorkspaceBackend work;
    private ServerTransfers transfers;
    private TestServer t;
    private WorkTargetDispatcher dispatcher;
    private Path footRoot;
    private ClientTransfers clientTransfers;

    private void start(Set<TransferCapability> daemonOffers) throws Exception {
        server = new TransferServerFixture(base, TransferSettings.defaults(), TransferListener.NONE);
        work = server.work;
        transfers = server.transfers;
        t = server.t;
        dispatcher = server.dispatcher;
        footRoot = Files.createDirectories(base.resolve("foot"));
        clientTransfers = ClientTransfers.create(FootTargetResolver.at(footRoot), new TransferScope("acme", "proj"),
                TransferSettings.builder().capabilities(daemonOffers).build(), TransferListener.NONE);
        t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(clientTransfers.extension()));
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
    }

    @AfterEach
    void stop() {
        if (t != null) {
            server.close();
            clientTransfers.close();
        }
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(42).nextBytes(b);
        return b;
    }

    private static void tree(Path top, byte[] big) throws IOException {
        Files.createDirectories(top.resolve("nested/deep"));
        Files.createDirectories(top.resolve("empty-dir"));
        Files.writeString(top.resolve("a.txt"), "hello");
        Files.write(top.resolve("empty.txt"), new byte[0]);
        Files.write(top.resolve("nested/deep/big.bin"), big);
        Files.writeString(top.resolve(ODD_NAME), "odd", StandardCharsets.UTF_8);
        Files.createSymbolicLink(top.resolve("link"), Path.of("a.txt"));
    }

    private static void assertTree(Path got, byte[] big) throws IOException {
        assertThat(Files.readString(got.resolve("a.txt"))).isEqualTo("hello");
        assertThat(Files.size(got.resolve("empty.txt"))).isZero();
        assertThat(Files.readAllBytes(got.resolve("nested/deep/big.bin"))).isEqualTo(big);
        assertThat(Files.readString(got.resolve(ODD_NAME), StandardCharsets.UTF_8)).isEqualTo("odd");
        assertThat(got.resolve("empty-dir")).isEmptyDirectory();
        assertThat(Files.exists(got.resolve("link"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> entry(Map<String, Object> result, String path) {
        return ((List<Map<String, Object>>) result.get("entries")).stream().filter(e -> e.get("path").equals(path))
                .findFirst().orElseThrow();
    }

    @Test
    void aTreeDownloadedToTheDaemonLandsWholeAndTheLinkIsSkipped() throws Exception {
        start(EnumSet.allOf(TransferCapability.class));
        byte[] big = bytes(500_000);
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        tree(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("site"), big);
        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_download",
                Map.of("dirName", dirName, "remotePath", "site", "localPath", "in/site"));
        assertThat(r).as(r.toString()).containsEntry("ok", true).containsEntry("filesWritten", 4)
                .containsEntry("bytesWritten", 5 + big.length + 3);
        assertThat(entry(r, "link")).containsEntry("status", "skipped");
        assertTree(footRoot.resolve("acme/proj/in/site"), big);
    }

    @Test
    void aTreeUploadedFromTheDaemonLandsWholeInTheRootDir() throws Exception {
        start(EnumSet.allOf(TransferCapability.class));
        byte[] big = bytes(500_000);
        tree(footRoot.resolve("acme/proj/src"), big);
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_upload",
                Map.of("localPath", "src", "dirName", dirName, "remotePath", "up"));
        assertThat(r).as(r.toString()).containsEntry("ok", true).containsEntry("filesWritten", 4);
        assertTree(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("up"), big);
    }

    @Test
    void anUploadThatMeetsExistingFilesReportsThemAndLandsTheRest() throws Exception {
        start(EnumSet.allOf(TransferCapability.class));
        byte[] big = bytes(1000);
        tree(footRoot.resolve("acme/proj/src"), big);
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Path up = Files.createDirectories(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("up"));
        Files.writeString(up.resolve("a.txt"), "kept");
        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_upload",
                Map.of("localPath", "src", "dirName", dirName, "remotePath", "up"));
        assertThat(r).containsEntry("ok", false).containsEntry("filesWritten", 3);
        assertThat(entry(r, "a.txt")).containsEntry("status", "failed").containsEntry("code", "exists");
        assertThat(Files.readString(up.resolve("a.txt"))).isEqualTo("kept");
        assertThat(Files.readAllBytes(up.resolve("nested/deep/big.bin"))).isEqualTo(big);
    }

    @Test
    void aDaemonWithoutDirectoryTransferGetsAClearErrorAndSingleFilesStillWork() throws Exception {
        start(EnumSet.of(TransferCapability.HASH_TRAILER, TransferCapability.BINARY));
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Path site = work.findRoot("acme", "proj", dirName).orElseThrow().resolve("site");
        tree(site, bytes(100));
        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_download",
                Map.of("dirName", dirName, "remotePath", "site", "localPath", "site"));
        assertThat(r).containsEntry("ok", false).containsEntry("code", "invalid_params");
        assertThat((String) r.get("error")).contains("transfer.directory");
        assertThat(dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "site/a.txt", "localPath", "a.txt"))).containsEntry("ok", true);
    }
}
