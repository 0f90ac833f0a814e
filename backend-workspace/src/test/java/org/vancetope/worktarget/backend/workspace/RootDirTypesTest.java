package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.RootDirHandle;
import org.vancetope.worktarget.spi.RootDirTypeHandler;

class RootDirTypesTest {

    private static RootDirTypeHandler handler(String type) {
        return new RootDirTypeHandler() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public void init(RootDirHandle dir) {
            }

            @Override
            public void suspend(RootDirHandle dir) {
            }

            @Override
            public void recover(RootDirHandle dir) {
            }

            @Override
            public void close(RootDirHandle dir) {
            }
        };
    }

    @Test
    void freezingRefusesATypeNameThatIsNotASafeSegment() {
        RootDirTypes.Table table = new RootDirTypes.Table();
        table.put(handler("a/b"), false);
        assertThatThrownBy(table::freeze).isInstanceOf(IllegalStateException.class)
                .hasMessage("RootDir type 'a/b' must be a safe name");
    }

    @Test
    void aLaterRegistrationOfATypeReplacesTheEarlierOne() {
        RootDirTypeHandler second = handler("git");
        RootDirTypes.Table table = new RootDirTypes.Table();
        table.put(handler("git"), true);
        table.put(second, false);
        RootDirTypes types = table.freeze();
        assertThat(types.handler("git")).isSameAs(second);
        assertThat(types.deleteOnCreatorCloseDefault("git")).isFalse();
    }

    @Test
    void namesAreSorted() {
        RootDirTypes.Table table = new RootDirTypes.Table();
        table.put(handler("zeta"), false);
        table.put(handler("alpha"), false);
        assertThat(table.freeze().names()).containsExactly("alpha", "zeta");
    }

    @Test
    void aTypeWithoutHandlerIsAnIllegalStateNamingIt() {
        RootDirTypes types = new RootDirTypes.Table().freeze();
        assertThat(types.isKnown("git")).isFalse();
        assertThatThrownBy(() -> types.handler("git")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'git'");
    }

    @Test
    void anUnknownTypeDoesNotGoAwayWithItsCreatorByDefault() {
        assertThat(new RootDirTypes.Table().freeze().deleteOnCreatorCloseDefault("git")).isFalse();
    }
}
