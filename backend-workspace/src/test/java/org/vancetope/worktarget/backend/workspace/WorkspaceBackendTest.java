package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.RootDirHandle;
import org.vancetope.worktarget.spi.RootDirTypeHandler;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

class WorkspaceBackendTest {
    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");
    private static final ToolContext P1 = new ToolContext("p1", null, "acme", "proj", "alice");
    private static final ToolContext P2 = new ToolContext("p2", null, "acme", "proj", "bob");

    private FileSystem fs;
    private Path root;
    private WorkspaceBackend work;
    private final List<String> events = new ArrayList<>();

    @BeforeEach
    void setUp() {
        fs = Jimfs.newFileSystem(Configuration.unix());
        root = fs.getPath("/ws");
        work = WorkspaceBackend.builder()
                .workspaceRoot(root)
                .clock(Clock.fixed(NOW, ZoneOffset.UTC))
                .listener(new RootDirListener() {
                    @Override
                    public void created(RootDirInfo dir) {
                        events.add("created " + dir.dirName());
                    }

                    @Override
                    public void disposing(RootDirInfo dir) {
                        events.add("disposing " + dir.dirName());
                    }
                })
                .build();
    }

    @AfterEach
    void tearDown() throws IOException {
        work.close();
        fs.close();
    }

    private Map<String, Object> call(String tool, ToolContext ctx, Object... kv) throws ToolException {
        Map<String, Object> p = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        BackendTool t = work.tools().stream().filter(x -> x.spec().name().equals(tool)).findFirst().orElseThrow();
        return t.invoke(p, ctx);
    }

    @Test
    void offersTheSeventeenWorkToolsWithCatalogSpecs() {
        assertThat(work.tools()).extracting(t -> t.spec().name()).containsExactly("work_file_read", "work_file_write",
                "work_file_edit", "work_file_list", "work_file_find", "work_file_grep", "work_file_head_tail",
                "work_file_count", "work_file_delete", "work_file_move", "work_file_mkdir", "work_file_stat",
                "work_file_tree", "work_exec_run", "work_exec_status", "work_exec_tail",
                "work_exec_kill");
        assertThat(work.tools()).allSatisfy(t ->
                assertThat(t.spec()).isEqualTo(org.vancetope.worktarget.core.ToolCatalog.backend(t.spec().name()).orElseThrow()));
        assertThat(work.tools().get(0).spec().parameterNames()).contains("dirName");
    }

    @Test
    void aProcessWithoutDirNameWorksInItsLazyTempRootDir() throws Exception {
        assertThat(work.rootDirNames("acme", "proj")).isEmpty();
        call("work_file_write", P1, "path", "a.txt", "content", "hi");
        List<RootDirInfo> dirs = work.rootDirs("acme", "proj");
        assertThat(dirs).hasSize(1);
        RootDirInfo temp = dirs.get(0);
        assertThat(temp.type()).isEqualTo("temp");
        assertThat(temp.creatorProcessId()).isEqualTo("p1");
        assertThat(temp.deleteOnCreatorClose()).isTrue();
        assertThat(temp.createdAt()).isEqualTo(NOW);
        assertThat(Files.readString(temp.path().resolve("a.txt"))).isEqualTo("hi");
    }

    @Test
    void eachProcessGetsItsOwnTempRootDir() throws Exception {
        call("work_file_write", P1, "path", "a.txt", "content", "one");
        call("work_file_write", P2, "path", "a.txt", "content", "two");
        assertThat(work.rootDirNames("acme", "proj")).hasSize(2);
        assertThat(call("work_file_read", P1, "path", "a.txt").get("content")).isEqualTo("one");
        assertThat(call("work_file_read", P2, "path", "a.txt").get("content")).isEqualTo("two");
    }

    @Test
    void closingAProcessDisposesItsDeleteOnCloseRootDirsOnly() throws Exception {
        call("work_file_write", P1, "path", "a.txt", "content", "x");
        String eph = work.createEphemeral(P1, Map.of("purpose", "user-upload"));
        RootDirInfo kept = work.createRootDir(P1, "src", "temp", "sources", false, null);
        call("work_file_write", P2, "path", "b.txt", "content", "y");
        RootDirInfo temp = work.tempRootDir(P1);
        Path tempPath = temp.path();

        List<RootDirInfo> disposed = work.closeProcess("p1");

        assertThat(disposed).extracting(RootDirInfo::dirName).containsExactlyInAnyOrder(eph, temp.dirName());
        assertThat(Files.exists(tempPath)).isFalse();
        assertThat(work.rootDirNames("acme", "proj")).contains("src").doesNotContain(eph);
        assertThat(Files.isDirectory(kept.path())).isTrue();
        assertThat(events).contains("disposing " + eph);
        assertThat(work.rootDirNames("acme", "proj")).hasSize(2);
    }

    @Test
    void ephemeralRootDirsCarryMetadataAndResolveByName() throws Exception {
        String name = work.createEphemeral(P1, Map.of("originatingTransferId", "t-1"));
        RootDirInfo info = work.rootDir("acme", "proj", name).orElseThrow();
        assertThat(info.type()).isEqualTo("ephemeral");
        assertThat(info.metadata()).containsEntry("originatingTransferId", "t-1");
        assertThat(work.resolveRoot("acme", "proj", name)).isEqualTo(info.path());
        call("work_file_write", P2, "dirName", name, "path", "upload.bin", "content", "data");
        assertThat(Files.readString(info.path().resolve("upload.bin"))).isEqualTo("data");
    }

    @Test
    void ephemeralContentDoesNotSurviveSuspendAndRecover() throws Exception {
        String name = work.createEphemeral(P1, null);
        call("work_file_write", P1, "dirName", name, "path", "f.txt", "content", "x");
        work.suspendProject("acme", "proj");
        work.recoverProject("acme", "proj");
        assertThat(call("work_file_list", P1, "dirName", name).get("entries")).isEqualTo(List.of());
    }

    @Test
    void tempContentSurvivesSuspendAndRecover() throws Exception {
        call("work_file_write", P1, "path", "f.txt", "content", "x");
        work.suspendProject("acme", "proj");
        work.recoverProject("acme", "proj");
        assertThat(call("work_file_read", P1, "path", "f.txt").get("content")).isEqualTo("x");
    }

    @Test
    void descriptorsAreReadBackByANewBackendOnTheSameRoot() throws Exception {
        work.createRootDir(P1, "data", "ephemeral", "my data", false, Map.of("k", "v"));
        WorkspaceBackend again = WorkspaceBackend.builder().workspaceRoot(root).build();
        RootDirInfo info = again.rootDir("acme", "proj", "data").orElseThrow();
        assertThat(info.label()).isEqualTo("my data");
        assertThat(info.metadata()).isEqualTo(Map.of("k", "v"));
        assertThat(info.createdAt()).isEqualTo(NOW);
        assertThat(info.deleteOnCreatorClose()).isFalse();
    }

    @Test
    void aDamagedDescriptorCostsOnlyItsOwnRootDirWhenANewBackendOpensTheWorkspace() throws Exception {
        work.createRootDir(P1, "data", "ephemeral", "my data", false, Map.of());
        work.createRootDir(P1, "broken", "ephemeral", "half written", false, Map.of());
        Path descriptor = root.resolve("acme/proj/.rootdirs/broken.properties");
        Files.writeString(descriptor, "type=ephemeral\nlabel=cut off in the middle of an escape \\u12");

        WorkspaceBackend again = WorkspaceBackend.builder().workspaceRoot(root).build();
        try {
            assertThat(again.rootDirNames("acme", "proj")).containsExactly("data");
            assertThat(Files.exists(root.resolve("acme/proj/broken"))).as("its files are kept").isTrue();
            assertThat(Files.exists(descriptor)).isTrue();
        } finally {
            again.close();
        }
    }

    @Test
    void closeProcessFindsRootDirsCreatedBeforeARestart() throws Exception {
        String eph = work.createEphemeral(P1, null);
        WorkspaceBackend again = WorkspaceBackend.builder().workspaceRoot(root).build();
        assertThat(again.closeProcess("p1")).extracting(RootDirInfo::dirName).containsExactly(eph);
    }

    @Test
    void descriptorsAreInvisibleToTheFileTools() throws Exception {
        work.createRootDir(P1, "src", "temp", null, false, null);
        assertThat(call("work_file_list", P1, "dirName", "src").get("entries")).isEqualTo(List.of());
        assertThat(work.rootDirNames("acme", "proj")).containsExactly("src");
    }

    @Test
    void unknownDirNameIsNotFoundAndListsTheExistingOnes() throws Exception {
        work.createRootDir(P1, "src", "temp", null, false, null);
        ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                () -> call("work_file_list", P1, "dirName", "docs"));
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(e.getMessage()).contains("Existing: src");
    }

    @Test
    void aProjectAtItsRootDirLimitRefusesOneMoreAndMakesNothingWhileOthersAndTempDirsGoOn() throws Exception {
        try (WorkspaceBackend small = WorkspaceBackend.builder().workspaceRoot(fs.getPath("/small"))
                .maxRootDirsPerProject(3).build()) {
            String first = small.ephemeralDirs().create(P1, null, true);
            small.ephemeralDirs().create(P1, null, false);
            small.createRootDir(P1, "named", "temp", null, false, null);
            List<String> before = small.rootDirNames("acme", "proj");

            ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                    () -> small.ephemeralDirs().create(P1, "upload", true));
            assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
            assertThat(e.getMessage()).contains("holds 3 RootDirs", "maxRootDirsPerProject 3", "no RootDir was made");
            assertThat(small.rootDirNames("acme", "proj")).containsExactlyInAnyOrderElementsOf(before);
            try (java.util.stream.Stream<Path> s = Files.list(fs.getPath("/small/acme/proj"))) {
                assertThat(s.filter(p -> !p.getFileName().toString().startsWith(".")).count()).isEqualTo(3);
            }

            // a process's own temp RootDir is still made, another project has its own count
            assertThat(small.tempRootDir(P2).dirName()).startsWith("temp-");
            small.ephemeralDirs().create(new ToolContext("p3", null, "acme", "other", "carol"), null, true);
            // the temp RootDir counts too: two go, one more may come
            assertThat(small.deleteRootDir("acme", "proj", first)).isTrue();
            assertThat(small.deleteRootDir("acme", "proj", "named")).isTrue();
            assertThat(small.ephemeralDirs().create(P1, null, true)).startsWith("ephemeral-");
        }
    }

    @Test
    void aRootDirLimitUnderOneIsRefusedWhenBuilt() {
        assertThatThrownBy(() -> WorkspaceBackend.builder().maxRootDirsPerProject(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
    }

    @Test
    void aNegativeHomeBudgetIsRefusedUnderItsBuilderName() {
        assertThatThrownBy(() -> WorkspaceBackend.builder().homeMaxBytes(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("homeMaxBytes must be 0 (off) or more, got -1");
    }

    @Test
    void unknownDirNameAmongManyListsTheFirstTwentyAndHowManyMore() throws Exception {
        for (int i = 0; i < 25; i++) {
            work.createRootDir(P1, String.format("d%02d", 24 - i), "temp", null, false, null);
        }
        ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                () -> call("work_file_list", P1, "dirName", "docs"));
        assertThat(e.getMessage()).contains("Existing: d00, d01, ", "d19 and 5 more").doesNotContain("d20");
    }

    @Test
    void jailbreakDirNameWithTraversalIsRefusedBeforeAnyLookup() {
        for (String bad : new String[] {"../otherProject/x", "..", ".", "a/b", "a\\b", "x\0y", ""}) {
            ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                    () -> call("work_file_list", P1, "dirName", bad));
            assertThat(e.code()).as(bad).isIn(ErrorCode.PATH_ESCAPE, ErrorCode.INVALID_PARAMS);
        }
        assertThat(Files.exists(root.resolve("acme"))).isFalse();
    }

    @Test
    void jailbreakTenantOrProjectWithTraversalIsRefused() {
        ToolContext evil = new ToolContext("p9", null, "acme", "../other", null);
        ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                () -> call("work_file_list", evil));
        assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
        assertThat(work.rootDirNames("acme", "../other")).isEmpty();
    }

    @Test
    void jailbreakOneProjectCannotReachAnotherProjectsRootDir() throws Exception {
        work.createRootDir(new ToolContext("p1", null, "acme", "other", null), "secret", "temp", null, false, null);
        ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                () -> call("work_file_list", P1, "dirName", "secret"));
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
        ToolException up = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                () -> call("work_file_read", P1, "path", "../../other/secret/x"));
        assertThat(up.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void jailbreakRootDirReplacedByALinkIsRefused() throws Exception {
        RootDirInfo info = work.createRootDir(P1, "src", "temp", null, false, null);
        Files.delete(info.path());
        Files.createDirectories(fs.getPath("/elsewhere"));
        Files.createSymbolicLink(info.path(), fs.getPath("/elsewhere"));
        ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                () -> call("work_file_list", P1, "dirName", "src"));
        assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void tenantOrProjectThatIsNotValidTextIsRefusedAndNoDirectoryIsMade() {
        for (ToolContext bad : new ToolContext[] {new ToolContext("p9", null, "\uFFFD\uFFFD", "proj", null),
                new ToolContext("p9", null, "acme", "x\uD800", null), new ToolContext("p9", null, ".hidden", "proj", null),
                new ToolContext("p9", null, "acme", "a\u0085b", null)}) {
            ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                    () -> call("work_file_write", bad, "path", "x.txt", "content", "x"));
            assertThat(e.code()).as(bad.tenant() + "/" + bad.project()).isEqualTo(ErrorCode.PATH_ESCAPE);
            assertThat(e.getMessage()).containsAnyOf("tenant must be", "project must be");
        }
        assertThat(root).isEmptyDirectory();
    }

    @Test
    void namesOfMoreBytesThanAFileNameHoldsAreRefusedAndNoDirectoryIsMade() {
        String cjk = "\u65e5".repeat(128);      // 128 characters, 384 bytes of UTF-8
        for (ToolContext bad : new ToolContext[] {new ToolContext("p9", null, cjk, "proj", null),
                new ToolContext("p9", null, "acme", cjk, null)}) {
            ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                    () -> call("work_file_write", bad, "path", "x.txt", "content", "x"));
            assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE);
            assertThat(e.getMessage()).contains("at most 240 bytes of UTF-8", "it has 384 bytes");
        }
        assertThatThrownBy(() -> work.createRootDir(P1, cjk, "temp", null, false, null))
                .isInstanceOf(ToolException.class).hasMessageContaining("dirName must be");
        assertThat(work.rootDirNames(P1.tenant(), P1.project())).isEmpty();
        assertThat(Files.exists(root.resolve(cjk))).isFalse();
    }

    @Test
    void theGrantWildcardAsAProjectIsRefusedAndNoDirectoryIsMade() {
        ToolContext star = new ToolContext("p9", null, "acme", "*", null);
        ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                () -> call("work_file_write", star, "path", "x.txt", "content", "x"));
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("project is '*', which in a token's projects grants every project",
                "Give the name of one project");
        assertThatThrownBy(() -> work.createRootDir(star, "src", "temp", null, false, null))
                .isInstanceOf(ToolException.class).hasMessageContaining("grants every project");
        assertThat(root).isEmptyDirectory();
    }

    @Test
    void dirNamesStartingWithADotAreRefused() {
        assertThatThrownBy(() -> work.createRootDir(P1, ".rootdirs", "temp", null, false, null))
                .isInstanceOf(ToolException.class);
    }

    @Test
    void creatingAnExistingNameIsExists() throws Exception {
        work.createRootDir(P1, "src", "temp", null, false, null);
        ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                () -> work.createRootDir(P2, "src", "temp", null, false, null));
        assertThat(e.code()).isEqualTo(ErrorCode.EXISTS);
    }

    @Test
    void unknownTypeIsInvalidParams() {
        ToolException e = org.junit.jupiter.api.Assertions.assertThrows(ToolException.class,
                () -> work.createRootDir(P1, "x", "git", null, false, null));
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
        assertThat(e.getMessage()).contains("ephemeral").contains("temp");
    }

    @Test
    void customTypesGetTheFullLifecycle() throws Exception {
        List<String> calls = new ArrayList<>();
        RootDirTypeHandler custom = new RootDirTypeHandler() {
            @Override
            public String type() {
                return "custom";
            }

            @Override
            public void init(RootDirHandle dir) throws IOException {
                Files.createDirectories(dir.path());
                calls.add("init " + dir.dirName());
            }

            @Override
            public void suspend(RootDirHandle dir) {
                calls.add("suspend");
            }

            @Override
            public void recover(RootDirHandle dir) {
                calls.add("recover");
            }

            @Override
            public void close(RootDirHandle dir) {
                calls.add("close");
            }
        };
        WorkspaceBackend w = WorkspaceBackend.builder().workspaceRoot(fs.getPath("/ws2"))
                .rootDirType(custom, true).build();
        w.createRootDir(P1, "c", "custom", null, null, null);
        w.suspendProject("acme", "proj");
        w.recoverProject("acme", "proj");
        w.closeProcess("p1");
        assertThat(calls).containsExactly("init c", "suspend", "recover", "close");
    }

    @Test
    void aRootDirWhoseCloseFailsKeepsItsDescriptorSoTheNextBackendListsItAgain() throws Exception {
        RootDirTypeHandler failing = new RootDirTypeHandler() {
            @Override
            public String type() {
                return "stubborn";
            }

            @Override
            public void init(RootDirHandle dir) throws IOException {
                Files.createDirectories(dir.path());
            }

            @Override
            public void suspend(RootDirHandle dir) {
            }

            @Override
            public void recover(RootDirHandle dir) {
            }

            @Override
            public void close(RootDirHandle dir) throws IOException {
                throw new IOException("cannot delete it now");
            }
        };
        WorkspaceBackend w = WorkspaceBackend.builder().workspaceRoot(fs.getPath("/ws3"))
                .rootDirType(failing, false).build();
        w.createRootDir(P1, "kept", "stubborn", null, false, null);

        assertThat(w.deleteRootDir("acme", "proj", "kept")).isTrue();

        assertThat(w.rootDirNames("acme", "proj")).doesNotContain("kept");
        w.close();
        WorkspaceBackend next = WorkspaceBackend.builder().workspaceRoot(fs.getPath("/ws3"))
                .rootDirType(failing, false).build();
        try {
            assertThat(next.rootDirNames("acme", "proj")).as("reachable again, to delete once it can be")
                    .contains("kept");
        } finally {
            next.close();
        }
    }

    @Test
    void listenersHearCreationAndDisposalAndAThrowingListenerIsIgnored() throws Exception {
        work.addListener(new RootDirListener() {
            @Override
            public void disposing(RootDirInfo dir) {
                throw new IllegalStateException("boom");
            }
        });
        String eph = work.createEphemeral(P1, null);
        assertThat(work.deleteRootDir("acme", "proj", eph)).isTrue();
        assertThat(events).containsExactly("created " + eph, "disposing " + eph);
        assertThat(work.deleteRootDir("acme", "proj", eph)).isFalse();
    }

    @Test
    void dispatcherRoutesWorkCallsWithTheTargetDirName() throws Exception {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p1").tenant("acme").project("proj").user("alice").add();
        work.createRootDir(P1, "src", "temp", null, false, null);
        store.putEngineParam("p1", WorkTarget.ENGINE_PARAM_KEY, WorkTarget.work("src").toMap());
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).backend(work).build();
        d.invoke("p1", "file_write", Map.of("path", "Main.java", "content", "class Main {}"));
        assertThat(Files.readString(work.resolveRoot("acme", "proj", "src").resolve("Main.java")))
                .isEqualTo("class Main {}");
        @SuppressWarnings("unchecked")
        List<String> names = (List<String>) d.invoke("p1", "work_target_get", Map.of()).get("rootDirs");
        assertThat(names).containsExactly("src");
    }

    @Test
    void everyCallOnAClosedBackendFailsSayingItIsClosedAndMakesNoRootDir() throws Exception {
        call("work_file_write", P1, "path", "a.txt", "content", "x");
        events.clear();
        work.close();

        for (String tool : List.of("work_file_read", "work_file_list", "work_exec_run")) {
            Object[] params = tool.equals("work_exec_run") ? new Object[] {"command", "true"}
                    : new Object[] {"path", tool.equals("work_file_read") ? "a.txt" : "."};
            assertThatThrownBy(() -> call(tool, P1, params)).as(tool)
                    .isInstanceOfSatisfying(ToolException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
                        assertThat(e.getMessage()).contains("WORK backend is closed", "WorkspaceBackend.close()");
                    });
        }
        assertThatThrownBy(() -> call("work_file_write", P2, "path", "b.txt", "content", "y"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL));
        assertThat(events).as("no RootDir made for a new process").isEmpty();
    }
}
