package org.vancetope.worktarget.backend.local;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.testkit.FileToolsContract;
import org.vancetope.worktarget.testkit.FileToolsFixture;

/**
 * The file-tools contract passes a backend whose results carry every integral number as a {@code Long} (as
 * a backend that decodes remote JSON with Gson does): the SPI allows any {@code Number} in a result.
 */
class LongNumbersContractTest extends FileToolsContract {
    @Override
    protected Flavour flavour() {
        return Flavour.REAL_DISK;
    }

    @Override
    protected FileToolsFixture createFixture(Path base) {
        LocalBackend b = LocalBackend.builder().workDirectory(base).build();
        List<BackendTool> longs = b.tools().stream()
                .map(t -> BackendTool.of(t.spec(), (p, c) -> longs(t.invoke(p, c)))).toList();
        return FileToolsFixture.of(longs, b.workDirectory(), LocalBackendContractTest.CTX);
    }

    @SuppressWarnings("unchecked")
    private static <T> T longs(T value) {
        if (value instanceof Integer i) {
            return (T) Long.valueOf(i);
        }
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put((String) k, longs(v)));
            return (T) out;
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(v -> out.add(longs(v)));
            return (T) out;
        }
        return value;
    }
}
