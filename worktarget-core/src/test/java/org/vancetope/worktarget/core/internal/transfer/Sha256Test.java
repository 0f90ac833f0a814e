package org.vancetope.worktarget.core.internal.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.SeekableByteChannel;
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
        Sha256.Summary s;
        try (SeekableByteChannel in = Files.newByteChannel(f)) {
            s = Sha256.of(in);
        }
        assertThat(s.size()).isEqualTo(size);
        assertThat(s.hash()).isEqualTo(expected(data));
        assertThat(Sha256.isWellFormed(s.hash())).isTrue();
    }
}
