package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_read} with {@code allowBinary} for a binary file: its whole content as
 * base64. The shape maps directly onto an MCP image content block ({@code data} = {@code content},
 * {@code mimeType} = {@code mediaType}).
 *
 * @param path the file, relative to the root
 * @param mediaType e.g. {@code image/png}, {@code application/octet-stream}
 * @param bytes the file's size in bytes
 * @param content the file's bytes, base64 (RFC 4648, with padding, no line breaks)
 */
record BinaryReadResult(String path, String mediaType, long bytes, String content) implements FileResult {
    /** The value of {@code encoding}. */
    static final String BASE64 = "base64";

    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("encoding", BASE64);
        r.put("mediaType", mediaType);
        r.put("bytes", bytes);
        r.put("content", content);
        return r;
    }
}
