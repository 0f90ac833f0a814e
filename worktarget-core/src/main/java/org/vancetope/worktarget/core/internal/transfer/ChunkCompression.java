package org.vancetope.worktarget.core.internal.transfer;

import java.util.Arrays;
import java.util.Objects;

/**
 * The zstd compression of chunks ({@code transfer.zstd}) and whether it is available. zstd-jni is an
 * optional dependency: its classes are touched only through {@link Native}, and only after the probe
 * found them present and their native library working, once per class loader. Without it,
 * {@link #available()} is false, the capability is not offered, and nothing here is called.
 */
public final class ChunkCompression {
    /** The class whose presence means zstd-jni is on the class path. */
    static final String ZSTD_CLASS = "com.github.luben.zstd.Zstd";
    /** The lowest compression level {@code TransferSettings} accepts. */
    public static final int MIN_LEVEL = 1;
    /** The highest compression level {@code TransferSettings} accepts (zstd's levels above need far more memory). */
    public static final int MAX_LEVEL = 19;
    /** The default level: zstd's own default, fast enough to outrun a gigabit link on one core. */
    public static final int DEFAULT_LEVEL = 3;

    private static final Availability AVAILABILITY = probe(ZSTD_CLASS);

    private ChunkCompression() {
    }

    /**
     * Whether zstd can be used, and if not, why.
     *
     * @param available true when the classes are present and the native library works
     * @param reason why not, or null when available
     */
    public record Availability(boolean available, String reason) {
    }

    /**
     * Whether zstd-jni is on the class path and its native library loads (probed once).
     *
     * @return true when chunks can be compressed and decompressed
     */
    public static boolean available() {
        return AVAILABILITY.available();
    }

    /**
     * The probe's result, with the reason when zstd is not available.
     *
     * @return the availability
     */
    public static Availability availability() {
        return AVAILABILITY;
    }

    /**
     * Probes for zstd: the class must be loadable and a compression round trip through the native
     * library must work. Never throws. The seam through which a test sees what a JVM without zstd-jni sees.
     *
     * @param className the class to look for ({@value #ZSTD_CLASS} for the real probe)
     * @return the availability
     */
    public static Availability probe(String className) {
        try {
            Class.forName(className, false, ChunkCompression.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return new Availability(false, "zstd-jni is not on the class path (" + className + " not found)");
        }
        if (!ZSTD_CLASS.equals(className)) {
            return new Availability(false, className + " is not zstd-jni's entry class");
        }
        try {
            byte[] sample = new byte[4096];
            Arrays.fill(sample, (byte) 'a');
            byte[] packed = Native.compress(sample, DEFAULT_LEVEL, sample.length);
            byte[] back = packed == null ? null : Native.decompress(packed, sample.length);
            if (back == null || !Arrays.equals(back, sample)) {
                return new Availability(false, "zstd-jni's self-test failed (a round trip changed the data)");
            }
            return new Availability(true, null);
        } catch (LinkageError | RuntimeException e) {
            return new Availability(false, "zstd-jni's native library does not load: " + e);
        }
    }

    /**
     * Compresses one chunk's data if that pays: the result is used only when it saves at least a
     * sixteenth of the chunk, so incompressible data goes raw.
     *
     * @param raw the chunk's data
     * @param level the zstd level
     * @return one zstd frame, or null to send the chunk raw
     * @throws IllegalStateException when zstd is not {@link #available()}
     */
    public static byte[] compress(byte[] raw, int level) {
        requireAvailable();
        if (raw.length < MIN_COMPRESSED) {
            return null;
        }
        return Native.compress(raw, level, room(raw.length));
    }

    /** Chunks shorter than this go raw: a frame header and a block header leave nothing to gain. */
    private static final int MIN_COMPRESSED = 64;

    /** The most bytes a compressed chunk may have to be worth sending: 1/16 less than raw. */
    private static int room(int rawLength) {
        return rawLength - rawLength / 16 - 1;
    }

    /**
     * A compressor for the chunks of one transfer: it keeps one native zstd context (set up once, not
     * per chunk) until it is closed. Not thread-safe; the sender uses it under its lock.
     *
     * @param level the zstd level
     * @return the compressor; close it
     * @throws IllegalStateException when zstd is not {@link #available()}
     */
    public static Compressor compressor(int level) {
        requireAvailable();
        return new Compressor(level);
    }

    /**
     * The chunk compressor of one transfer ({@link #compressor(int)}). After {@value #GIVE_UP} chunks
     * in a row that did not shrink, it tries only every {@value #RETRY_EVERY}th chunk (and resumes
     * trying each one as soon as one shrinks), so an incompressible file costs an attempt now and then.
     */
    public static final class Compressor implements AutoCloseable {
        /** Chunks in a row that did not shrink, after which most are sent raw without trying. */
        public static final int GIVE_UP = 4;
        /** While given up, every this many chunks one is tried. */
        public static final int RETRY_EVERY = 16;
        private final com.github.luben.zstd.ZstdCompressCtx ctx;
        private byte[] buffer = new byte[0];
        private long misses;

        private Compressor(int level) {
            ctx = new com.github.luben.zstd.ZstdCompressCtx();
            ctx.setLevel(level);
        }

        /**
         * As {@link ChunkCompression#compress(byte[], int)}, with this compressor's context and level.
         *
         * @param raw the chunk's data
         * @return one zstd frame, or null to send the chunk raw
         */
        public byte[] compress(byte[] raw) {
            if (raw.length < MIN_COMPRESSED) {
                return null;
            }
            if (misses >= GIVE_UP && (misses - GIVE_UP) % RETRY_EVERY != RETRY_EVERY - 1) {
                misses++;
                return null;
            }
            int room = room(raw.length);
            if (buffer.length < room) {
                buffer = new byte[room];
            }
            try {
                int n = ctx.compressByteArray(buffer, 0, room, raw, 0, raw.length);
                misses = 0;
                return Arrays.copyOf(buffer, n);
            } catch (com.github.luben.zstd.ZstdException e) {
                misses++;
                return null;                     // "destination buffer is too small": it does not shrink enough
            }
        }

        /** Frees the native context. */
        @Override
        public void close() {
            ctx.close();
        }
    }

    /**
     * Decompresses one chunk into an array of exactly its declared size, which the caller has checked
     * against its limit: the output is bounded by that array, so data that would decompress to more
     * (a decompression bomb) fail here without a byte beyond it being produced.
     *
     * @param packed the chunk's zstd frames
     * @param declared the decompressed size the chunk declares, not negative and within the caller's limit
     * @return the data
     * @throws IllegalArgumentException when the data are not zstd, are corrupt, or decompress to another
     *         size than declared (the message says which)
     * @throws IllegalStateException when zstd is not {@link #available()}
     */
    public static byte[] decompress(byte[] packed, int declared) {
        requireAvailable();
        if (declared < 0) {
            throw new IllegalArgumentException("the declared size " + declared + " is negative");
        }
        return Native.decompress(packed, declared);
    }

    private static void requireAvailable() {
        if (!AVAILABILITY.available()) {
            throw new IllegalStateException("zstd is not available: " + AVAILABILITY.reason());
        }
    }

    /** The only code that names zstd-jni's classes: loaded after the probe found them. */
    private static final class Native {
        private Native() {
        }

        /** Compresses into at most {@code room} bytes; null when the frame does not fit (it would not pay). */
        static byte[] compress(byte[] raw, int level, int room) {
            long bound = com.github.luben.zstd.Zstd.compressBound(raw.length);
            byte[] out = new byte[(int) Math.min(bound, Math.max(room, 0))];
            if (out.length == 0) {
                return null;
            }
            try {
                long n = com.github.luben.zstd.Zstd.compressByteArray(out, 0, out.length, raw, 0, raw.length, level);
                if (com.github.luben.zstd.Zstd.isError(n)) {
                    return null;
                }
                return n == out.length ? out : Arrays.copyOf(out, (int) n);
            } catch (com.github.luben.zstd.ZstdException e) {
                return null;                     // "destination buffer is too small": it does not shrink enough
            }
        }

        static byte[] decompress(byte[] packed, int declared) {
            Objects.requireNonNull(packed, "packed");
            byte[] out = new byte[declared];
            long n;
            try {
                n = com.github.luben.zstd.Zstd.decompressByteArray(out, 0, declared, packed, 0, packed.length);
            } catch (com.github.luben.zstd.ZstdException e) {
                throw refusal(e.getMessage(), declared);
            }
            if (com.github.luben.zstd.Zstd.isError(n)) {
                throw refusal(com.github.luben.zstd.Zstd.getErrorName(n), declared);
            }
            if (n != declared) {
                throw new IllegalArgumentException("the data decompress to " + n + " bytes and the chunk declares "
                        + declared);
            }
            return out;
        }

        private static IllegalArgumentException refusal(String zstdError, int declared) {
            if (zstdError != null && zstdError.toLowerCase(java.util.Locale.ROOT).contains("too small")) {
                return new IllegalArgumentException("the data decompress to more than the " + declared
                        + " bytes the chunk declares");
            }
            return new IllegalArgumentException("the data are not valid zstd (" + zstdError + ")");
        }
    }
}
