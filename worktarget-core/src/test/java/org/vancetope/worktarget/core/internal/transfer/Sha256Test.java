package org.vancetope.worktarget.core.internal.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Sha256Test {
    @TempDir
    Path dir;

    private static String expected(byte[] data) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 262_143, 262_144, 1_048_576, 1_048_577, 3_000_001})
    void fileHashAndSizeMatchTheBytesOnBothBufferPaths(int size) throws Exception {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        Path f = Files.write(dir.resolve("f.bin"), data);
        Sha256.Summary s = Sha256.of(f);
        assertThat(s.size()).isEqualTo(size);
        assertThat(s.hash()).isEqualTo(expected(data));
        assertThat(Sha256.isWellFormed(s.hash())).isTrue();
    }

    @Test
    void aSymbolicLinkIsNotFollowed() throws Exception {
        Path target = Files.write(dir.resolve("t.bin"), new byte[] {1, 2, 3});
        Path link = Files.createSymbolicLink(dir.resolve("l.bin"), target);
        assertThatThrownBy(() -> Sha256.of(link)).isInstanceOf(IOException.class);
    }
}
