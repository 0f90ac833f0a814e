package org.vancetope.worktarget.core.internal.home;

import org.vancetope.worktarget.core.HomeMaintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.SettingLevel;
import org.vancetope.worktarget.spi.SettingsCascade;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.ManualTime;

class HomesTest {
    @TempDir
    Path base;

    /** A cascade backed by a map keyed "LEVEL/id". */
    static final class MapSettings implements SettingsCascade {
        final Map<String, String> values = new HashMap<>();

        MapSettings set(SettingLevel level, String id, String value) {
            values.put(level + "/" + id, value);
            return this;
        }

        @Override
        public Optional<String> lookup(SettingLevel level, String tenant, String id, String key) {
            return key.equals(HomeScope.SETTING) ? Optional.ofNullable(values.get(level + "/" + id)) : Optional.empty();
        }
    }

    private Homes homes(SettingsCascade settings) {
        return Homes.builder().homesRoot(base.resolve("homes")).settings(settings).build();
    }

    @Test
    void defaultScopeIsProjectWithTheProjectNameAsKey() throws ToolException {
        Home h = homes(SettingsCascade.EMPTY).resolve("acme", "shop", "alice");
        assertThat(h.scope()).isEqualTo(HomeScope.PROJECT);
        assertThat(h.dir()).isEqualTo(base.resolve("homes/acme/shop"));
    }

    @Test
    void aHomesRootThatIsAFileIsRefusedAtBuild() throws Exception {
        Path file = java.nio.file.Files.writeString(base.resolve("homes"), "x");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Homes.builder().homesRoot(file).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the homes root " + file + " exists and is not a directory");
    }

    @Test
    void aHomesRootThatDoesNotExistYetIsAccepted() {
        assertThat(Homes.builder().homesRoot(base.resolve("later/homes")).build()).isNotNull();
        assertThat(base.resolve("later")).doesNotExist();
    }

    /** What the logger (slf4j-simple writes to System.err in these tests) printed while the call ran. */
    private static String stderrOf(Runnable call) {
        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(buffer, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            call.run();
        } finally {
            System.setErr(original);
        }
        return buffer.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void theDefaultScopeNeedsNoWarning() {
        Homes homes = homes(SettingsCascade.EMPTY);
        String logged = stderrOf(() -> assertThat(homes.scope("acme", "shop", "alice")).isEqualTo(HomeScope.PROJECT));
        assertThat(logged).doesNotContain("WARN").doesNotContain(HomeScope.SETTING);
    }

    @Test
    void anUnparseableScopeIsWarnedAboutOnceAndFallsBackToProject() {
        Homes homes = homes(new MapSettings().set(SettingLevel.PROJECT, "shop", "galaxy"));
        String logged = stderrOf(() -> {
            assertThat(homes.scope("acme", "shop", "alice")).isEqualTo(HomeScope.PROJECT);
            assertThat(homes.scope("acme", "shop", "alice")).isEqualTo(HomeScope.PROJECT);
        });
        assertThat(logged).containsOnlyOnce("unparseable value 'galaxy'");
    }

    @Test
    void tenantScopeUsesTheTenantKey() throws ToolException {
        MapSettings s = new MapSettings().set(SettingLevel.TENANT, "acme", "tenant");
        assertThat(homes(s).resolve("acme", "shop", "alice").dir()).isEqualTo(base.resolve("homes/acme/_tenant"));
    }

    @Test
    void userScopeUsesTheUserKey() throws ToolException {
        MapSettings s = new MapSettings().set(SettingLevel.PROJECT, "shop", "user");
        assertThat(homes(s).resolve("acme", "shop", "alice").dir()).isEqualTo(base.resolve("homes/acme/_user_alice"));
    }

    @Test
    void userScopeWithoutAUserFallsBackToProject() throws ToolException {
        MapSettings s = new MapSettings().set(SettingLevel.PROJECT, "shop", "user");
        Home h = homes(s).resolve("acme", "shop", null);
        assertThat(h.scope()).isEqualTo(HomeScope.PROJECT);
        assertThat(h.key()).isEqualTo("shop");
    }

    @Test
    void userSettingWinsOverProjectWhichWinsOverTenant() {
        MapSettings s = new MapSettings().set(SettingLevel.TENANT, "acme", "tenant").set(SettingLevel.PROJECT, "shop", "user");
        assertThat(homes(s).scope("acme", "shop", "alice")).isEqualTo(HomeScope.USER);
        s.set(SettingLevel.USER, "alice", "project");
        assertThat(homes(s).scope("acme", "shop", "alice")).isEqualTo(HomeScope.PROJECT);
        assertThat(homes(s).scope("acme", "other", "bob")).isEqualTo(HomeScope.TENANT);
    }

    @Test
    void unparseableSettingFallsBackToProject() {
        MapSettings s = new MapSettings().set(SettingLevel.TENANT, "acme", "tenat");
        assertThat(homes(s).scope("acme", "shop", "alice")).isEqualTo(HomeScope.PROJECT);
    }

    @Test
    void settingTextNeverBecomesTheDirectoryName() throws ToolException {
        MapSettings s = new MapSettings().set(SettingLevel.TENANT, "acme", " TENANT ");
        Home h = homes(s).resolve("acme", "shop", "alice");
        assertThat(h.key()).isEqualTo("_tenant");
    }

    @Test
    void defaultHomesRootIsASiblingOfTheWorkspace() {
        Homes h = Homes.builder().workspaceRoot(base.resolve("workspace")).build();
        assertThat(h.root()).isEqualTo(base.resolve("homes"));
    }

    @Test
    void missingRootsFailAtBuild() {
        assertThatThrownBy(() -> Homes.builder().build()).hasMessageContaining("homesRoot");
        assertThatThrownBy(() -> Homes.builder().homesRoot(base).maxBytes(-1).build()).hasMessageContaining("maxBytes");
    }

    @Test
    void unsafeTenantIsRefused() {
        assertThatThrownBy(() -> homes(SettingsCascade.EMPTY).resolve("..", "shop", "alice"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE));
    }

    @Test
    void tenantOrProjectThatIsNotValidTextIsRefusedBeforeAHomeIsMade() {
        Homes homes = homes(SettingsCascade.EMPTY);
        assertThatThrownBy(() -> homes.prepare("\uFFFD\uFFFD", "shop", "alice"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE))
                .hasMessageContaining("tenant must be").hasMessageContaining("U+FFFD");
        assertThatThrownBy(() -> homes.prepare("acme", "shop\uD800", "alice"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE))
                .hasMessageContaining("project must be");
        assertThat(base.resolve("homes")).satisfiesAnyOf(p -> assertThat(p).doesNotExist(),
                p -> assertThat(p).isEmptyDirectory());
    }

    @Test
    void unsafeProjectIsRefused() {
        assertThatThrownBy(() -> homes(SettingsCascade.EMPTY).resolve("acme", "a/../../b", "alice"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE));
    }

    @Test
    void unsafeUserLoginIsRefused() {
        MapSettings s = new MapSettings().set(SettingLevel.TENANT, "acme", "user");
        assertThatThrownBy(() -> homes(s).resolve("acme", "shop", "x/../../etc"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE));
    }

    @Test
    void projectNamedLikeASharedKeyIsRefused() {
        assertThatThrownBy(() -> homes(SettingsCascade.EMPTY).resolve("acme", "_tenant", "alice"))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("reserved"));
    }

    @Test
    void prepareCreatesTheHome() throws ToolException {
        Home h = homes(SettingsCascade.EMPTY).prepare("acme", "shop", null);
        assertThat(h.dir()).isDirectory();
    }

    @Test
    void overBudgetRefusesWithSizeBudgetAndTheThreeOptions() throws Exception {
        Homes homes = Homes.builder().homesRoot(base).maxBytes(1_000).build();
        Home h = homes.resolve("acme", "shop", null);
        Files.createDirectories(h.dir());
        Files.write(h.dir().resolve("cache.bin"), new byte[2_000]);
        assertThatThrownBy(() -> homes.prepare("acme", "shop", null)).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED);
            assertThat(e.getMessage()).contains("2000 bytes", "1000 bytes", "clean up", "raise", "to 0")
                    .contains("only jobs that look at files and remove them start", "du -sh", "rm -rf")
                    .doesNotContain(base.toString());
        });
    }

    @Test
    void sizeIsMeasuredAtMostOncePerInterval() throws Exception {
        ManualTime time = new ManualTime();
        Homes homes = Homes.builder().homesRoot(base).maxBytes(1_000).clock(time.clock()).build();
        Home h = homes.prepare("acme", "shop", null);
        Files.write(h.dir().resolve("cache.bin"), new byte[2_000]);
        time.advance(Duration.ofMinutes(4));
        homes.checkBudget(h); // still the first measurement (empty)
        time.advance(Duration.ofMinutes(1));
        assertThatThrownBy(() -> homes.checkBudget(h)).isInstanceOf(ToolException.class);
        Files.delete(h.dir().resolve("cache.bin"));
        assertThatThrownBy(() -> homes.checkBudget(h)).isInstanceOf(ToolException.class);
        time.advance(Duration.ofMinutes(5));
        homes.checkBudget(h);
    }

    @Test
    void aHomeOverBudgetIsMeasuredAgainWithinSecondsSoACleanUpCountsAtOnce() throws Exception {
        ManualTime time = new ManualTime();
        Homes homes = Homes.builder().homesRoot(base).maxBytes(1_000).clock(time.clock()).build();
        Home h = homes.prepare("acme", "shop", null);
        Files.write(h.dir().resolve("cache.bin"), new byte[2_000]);
        time.advance(Duration.ofMinutes(5));
        assertThatThrownBy(() -> homes.checkBudget(h)).isInstanceOf(ToolException.class);
        Files.delete(h.dir().resolve("cache.bin"));
        time.advance(Duration.ofSeconds(4));
        assertThatThrownBy(() -> homes.checkBudget(h)).as("measured 4 s ago").isInstanceOf(ToolException.class);
        time.advance(Duration.ofSeconds(1));
        homes.checkBudget(h);
    }

    @Test
    void aCleanUpJobIsPreparedOverBudgetAndAnyOtherIsNot() throws Exception {
        Homes homes = Homes.builder().homesRoot(base).maxBytes(1_000).build();
        Home h = homes.resolve("acme", "shop", null);
        Files.createDirectories(h.dir());
        Files.write(h.dir().resolve("cache.bin"), new byte[2_000]);

        assertThat(homes.prepare("acme", "shop", null, true).dir()).isEqualTo(h.dir());
        assertThatThrownBy(() -> homes.prepare("acme", "shop", null, false)).isInstanceOfSatisfying(
                ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED));
    }

    @Test
    void zeroBudgetTurnsTheCheckOff() throws Exception {
        Homes homes = Homes.builder().homesRoot(base).maxBytes(0).build();
        Home h = homes.prepare("acme", "shop", null);
        Files.write(h.dir().resolve("cache.bin"), new byte[2_000]);
        homes.checkBudget(h);
    }

    @Test
    void projectDeleteDeletesTheProjectHome() throws Exception {
        Homes homes = homes(SettingsCascade.EMPTY);
        Home h = homes.prepare("acme", "shop", null);
        Files.createDirectories(h.dir().resolve(".cache/x"));
        Files.writeString(h.dir().resolve(".cache/x/f"), "data");
        HomeMaintenance.Result r = homes.deleteProject("acme", "shop");
        assertThat(r.changed()).isTrue();
        assertThat(r.deleteNote()).isNull();
        assertThat(h.dir()).doesNotExist();
    }

    @Test
    void projectDeleteUnderTenantScopeKeepsTheSharedHomeAndSaysSo() throws Exception {
        MapSettings s = new MapSettings().set(SettingLevel.TENANT, "acme", "tenant");
        Homes homes = homes(s);
        Home shared = homes.prepare("acme", "shop", null);
        HomeMaintenance.Result r = homes.deleteProject("acme", "shop");
        assertThat(r.changed()).isFalse();
        assertThat(r.deleteNote()).contains("tenant", "stays");
        assertThat(shared.dir()).isDirectory();
    }

    @Test
    void projectDeleteStillRemovesALeftoverProjectHomeAfterAScopeChange() throws Exception {
        MapSettings s = new MapSettings();
        Homes homes = homes(s);
        Home old = homes.prepare("acme", "shop", null);
        s.set(SettingLevel.TENANT, "acme", "tenant");
        HomeMaintenance.Result r = homes.deleteProject("acme", "shop");
        assertThat(old.dir()).doesNotExist();
        assertThat(r.changed()).isTrue();
        assertThat(r.deleteNote()).isNotNull();
    }

    @Test
    void userDeleteDeletesTheUserHomeOnly() throws Exception {
        MapSettings s = new MapSettings().set(SettingLevel.TENANT, "acme", "user");
        Homes homes = homes(s);
        Home alice = homes.prepare("acme", "shop", "alice");
        Home bob = homes.prepare("acme", "shop", "bob");
        assertThat(homes.deleteUser("acme", "alice").changed()).isTrue();
        assertThat(alice.dir()).doesNotExist();
        assertThat(bob.dir()).isDirectory();
        assertThat(homes.deleteUser("acme", "alice").changed()).isFalse();
    }

    @Test
    void projectRenameMovesTheHome() throws Exception {
        Homes homes = homes(SettingsCascade.EMPTY);
        Home h = homes.prepare("acme", "shop", null);
        Files.writeString(h.dir().resolve("f"), "kept");
        assertThat(homes.renameProject("acme", "shop", "store").changed()).isTrue();
        assertThat(base.resolve("homes/acme/store/f")).hasContent("kept");
        assertThat(h.dir()).doesNotExist();
    }

    @Test
    void renameOntoAnExistingHomeIsBlockedNotMerged() throws Exception {
        Homes homes = homes(SettingsCascade.EMPTY);
        Home a = homes.prepare("acme", "shop", null);
        Home b = homes.prepare("acme", "store", null);
        Files.writeString(a.dir().resolve("a"), "a");
        Files.writeString(b.dir().resolve("b"), "b");
        HomeMaintenance.Result r = homes.renameProject("acme", "shop", "store");
        assertThat(r.changed()).isFalse();
        assertThat(r.renameBlocker()).contains("already exists", "not merged");
        assertThat(a.dir().resolve("a")).exists();
        assertThat(b.dir().resolve("a")).doesNotExist();
    }

    @Test
    void userRenameMovesTheUserHome() throws Exception {
        MapSettings s = new MapSettings().set(SettingLevel.TENANT, "acme", "user");
        Homes homes = homes(s);
        homes.prepare("acme", "shop", "alice");
        assertThat(homes.renameUser("acme", "alice", "alicia").changed()).isTrue();
        assertThat(base.resolve("homes/acme/_user_alicia")).isDirectory();
    }

    @Test
    void maintenanceRefusesUnsafeSegments() {
        Homes homes = homes(SettingsCascade.EMPTY);
        assertThatThrownBy(() -> homes.deleteProject("acme", "..")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> homes.deleteUser("a/b", "alice")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> homes.renameProject("acme", "shop", "../x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> homes.renameUser("acme", "alice", "x\0y")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void projectDeleteWithNoHomeChangesNothing() throws IOException {
        assertThat(homes(SettingsCascade.EMPTY).deleteProject("acme", "none")).isEqualTo(new HomeMaintenance.Result(false, null, null));
    }
}
