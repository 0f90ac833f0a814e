package org.vancetope.worktarget.core.internal.file;

import java.util.Locale;
import java.util.Map;

/**
 * The media type of a file for a binary {@code file_read}: from its first bytes (the signatures of the
 * common image, document and archive formats), else from its name's extension, else
 * {@code application/octet-stream}.
 */
final class MediaTypes {
    /** What a binary file of unknown kind is. */
    static final String OCTET_STREAM = "application/octet-stream";

    private static final Map<String, String> BY_EXTENSION = Map.ofEntries(
            Map.entry("png", "image/png"),
            Map.entry("jpg", "image/jpeg"),
            Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"),
            Map.entry("webp", "image/webp"),
            Map.entry("bmp", "image/bmp"),
            Map.entry("ico", "image/vnd.microsoft.icon"),
            Map.entry("tif", "image/tiff"),
            Map.entry("tiff", "image/tiff"),
            Map.entry("pdf", "application/pdf"),
            Map.entry("zip", "application/zip"),
            Map.entry("jar", "application/java-archive"),
            Map.entry("gz", "application/gzip"),
            Map.entry("tar", "application/x-tar"),
            Map.entry("wasm", "application/wasm"),
            Map.entry("class", "application/java-vm"),
            Map.entry("mp3", "audio/mpeg"),
            Map.entry("wav", "audio/wav"),
            Map.entry("mp4", "video/mp4"));

    private MediaTypes() {
    }

    /**
     * The media type recognised from a file's first bytes, or null when they match no known signature.
     *
     * @param b the first bytes
     * @param n how many of them are valid
     * @return e.g. {@code image/png}, or null
     */
    static String fromSignature(byte[] b, int n) {
        if (starts(b, n, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)) {
            return "image/png";
        }
        if (starts(b, n, 0xFF, 0xD8, 0xFF)) {
            return "image/jpeg";
        }
        if (starts(b, n, 'G', 'I', 'F', '8', '7', 'a') || starts(b, n, 'G', 'I', 'F', '8', '9', 'a')) {
            return "image/gif";
        }
        if (starts(b, n, 'R', 'I', 'F', 'F') && n >= 12 && b[8] == 'W' && b[9] == 'E' && b[10] == 'B' && b[11] == 'P') {
            return "image/webp";
        }
        if (starts(b, n, 'I', 'I', 0x2A, 0x00) || starts(b, n, 'M', 'M', 0x00, 0x2A)) {
            return "image/tiff";
        }
        if (starts(b, n, '%', 'P', 'D', 'F', '-')) {
            return "application/pdf";
        }
        if (starts(b, n, 'P', 'K', 0x03, 0x04)) {
            return "application/zip";
        }
        if (starts(b, n, 0x1F, 0x8B)) {
            return "application/gzip";
        }
        if (starts(b, n, 0x00, 'a', 's', 'm')) {
            return "application/wasm";
        }
        return null;
    }

    /**
     * The media type of a binary file: its signature, else its extension, else
     * {@link #OCTET_STREAM}.
     *
     * @param fileName the file's name
     * @param b its first bytes
     * @param n how many of them are valid
     * @return the media type
     */
    static String of(String fileName, byte[] b, int n) {
        String bySignature = fromSignature(b, n);
        if (bySignature != null) {
            return bySignature;
        }
        int dot = fileName.lastIndexOf('.');
        if (dot >= 0) {
            String type = BY_EXTENSION.get(fileName.substring(dot + 1).toLowerCase(Locale.ROOT));
            if (type != null) {
                return type;
            }
        }
        return OCTET_STREAM;
    }

    private static boolean starts(byte[] b, int n, int... signature) {
        if (n < signature.length) {
            return false;
        }
        for (int i = 0; i < signature.length; i++) {
            if ((b[i] & 0xFF) != signature[i]) {
                return false;
            }
        }
        return true;
    }
}
