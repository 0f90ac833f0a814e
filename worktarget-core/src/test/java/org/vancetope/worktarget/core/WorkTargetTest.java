package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkTargetTest {

    @Test
    void daemonWithoutNameIsRejectedByTheConstructor() {
        assertThatThrownBy(() -> new WorkTarget(WorkTargetKind.DAEMON, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DAEMON").hasMessageContaining("targetName");
    }

    @Test
    void daemonWithBlankNameIsRejectedByTheConstructor() {
        assertThatThrownBy(() -> new WorkTarget(WorkTargetKind.DAEMON, "   "))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nullKindIsRejected() {
        assertThatThrownBy(() -> new WorkTarget(null, "x")).isInstanceOf(NullPointerException.class);
    }

    @Test
    void clientDropsItsName() {
        assertThat(new WorkTarget(WorkTargetKind.CLIENT, "ignored").targetName()).isNull();
        assertThat(new WorkTarget(WorkTargetKind.CLIENT, "ignored")).isEqualTo(WorkTarget.CLIENT);
    }

    @Test
    void blankWorkNameMeansTheTempRootDir() {
        assertThat(WorkTarget.work("  ")).isEqualTo(WorkTarget.WORK_TEMP);
    }

    @Test
    void namesAreStripped() {
        assertThat(WorkTarget.daemon("  box  ").targetName()).isEqualTo("box");
    }

    @Test
    void toMapWritesKindAndTargetName() {
        assertThat(WorkTarget.daemon("build-box-01").toMap())
                .containsExactly(Map.entry("kind", "DAEMON"), Map.entry("targetName", "build-box-01"));
    }

    @Test
    void toMapOmitsAMissingName() {
        assertThat(WorkTarget.WORK_TEMP.toMap()).containsExactly(Map.entry("kind", "WORK"));
    }

    @Test
    void fromMapAcceptsAnyCaseAndSurroundingBlanksInKind() {
        assertThat(WorkTarget.fromMap(Map.of("kind", "  daemon ", "targetName", "box")))
                .isEqualTo(WorkTarget.daemon("box"));
        assertThat(WorkTarget.fromMap(Map.of("kind", "Work"))).isEqualTo(WorkTarget.WORK_TEMP);
        assertThat(WorkTarget.fromMap(Map.of("kind", "cLiEnT"))).isEqualTo(WorkTarget.CLIENT);
    }

    @Test
    void fromMapReadsTheLegacyDirNameWhenTargetNameIsAbsent() {
        assertThat(WorkTarget.fromMap(Map.of("kind", "WORK", "dirName", "src"))).isEqualTo(WorkTarget.work("src"));
    }

    @Test
    void fromMapIgnoresTheLegacyDirNameWhenTargetNameIsPresent() {
        assertThat(WorkTarget.fromMap(Map.of("kind", "WORK", "targetName", "new", "dirName", "old")))
                .isEqualTo(WorkTarget.work("new"));
    }

    @Test
    void fromMapIgnoresTheLegacyDirNameWhenTargetNameIsPresentButNull() {
        Map<String, Object> m = new HashMap<>();
        m.put("kind", "WORK");
        m.put("targetName", null);
        m.put("dirName", "old");
        assertThat(WorkTarget.fromMap(m)).isEqualTo(WorkTarget.WORK_TEMP);
    }

    @Test
    void fromMapRejectsANullMap() {
        assertThatThrownBy(() -> WorkTarget.fromMap(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CLIENT, WORK, DAEMON");
    }

    @Test
    void fromMapRejectsAMissingKindListingTheValidKinds() {
        assertThatThrownBy(() -> WorkTarget.fromMap(Map.of("targetName", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CLIENT, WORK, DAEMON");
    }

    @Test
    void fromMapRejectsABlankKindListingTheValidKinds() {
        assertThatThrownBy(() -> WorkTarget.fromMap(Map.of("kind", "  ")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CLIENT, WORK, DAEMON");
    }

    @Test
    void fromMapRejectsAnUnknownKindListingTheValidKinds() {
        assertThatThrownBy(() -> WorkTarget.fromMap(Map.of("kind", "LAPTOP")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LAPTOP").hasMessageContaining("CLIENT, WORK, DAEMON");
    }

    @Test
    void fromMapRejectsADaemonWithoutName() {
        assertThatThrownBy(() -> WorkTarget.fromMap(Map.of("kind", "DAEMON")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("targetName");
    }

    @Test
    void fromMapRejectsANonStringName() {
        assertThatThrownBy(() -> WorkTarget.fromMap(Map.of("kind", "WORK", "targetName", 42)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("string");
    }

    @Test
    void toMapAndFromMapRoundTrip() {
        for (WorkTarget t : new WorkTarget[] {WorkTarget.CLIENT, WorkTarget.WORK_TEMP, WorkTarget.work("src"),
                WorkTarget.daemon("box")}) {
            assertThat(WorkTarget.fromMap(t.toMap())).isEqualTo(t);
        }
    }
}
