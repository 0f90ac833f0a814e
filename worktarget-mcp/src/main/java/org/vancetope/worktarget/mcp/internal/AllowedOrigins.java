package org.vancetope.worktarget.mcp.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * The browser origins the Streamable HTTP endpoint serves (MCP requires servers to validate {@code Origin},
 * against DNS rebinding: a page that rebinds its own name to 127.0.0.1 would otherwise drive a local server).
 * A request without {@code Origin} (not from a browser) is not judged here; one with an origin not listed is
 * refused.
 *
 * <p>An entry is {@code scheme://host}, {@code scheme://host:port} or {@code scheme://host:*} (any port), for
 * example {@code https://app.example.com} or {@code http://localhost:*}; an entry without a port allows only the
 * origin without one (the scheme's default port). Scheme and host compare case-insensitively.
 */
public final class AllowedOrigins {
    /** The default: loopback pages on any port, {@code http} and {@code https}. */
    public static final List<String> LOOPBACK = List.of("http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*",
            "https://localhost:*", "https://127.0.0.1:*", "https://[::1]:*");

    private record Entry(String scheme, String host, String port) {
    }

    private final List<Entry> entries;
    private final List<String> listed;

    private AllowedOrigins(List<Entry> entries, List<String> listed) {
        this.entries = entries;
        this.listed = listed;
    }

    /**
     * The origins of these entries.
     *
     * @param origins the entries, each {@code scheme://host[:port|:*]}
     * @return the allowed origins
     * @throws IllegalArgumentException for an entry that is not of that form, saying which
     */
    public static AllowedOrigins of(Collection<String> origins) {
        List<Entry> entries = new ArrayList<>();
        List<String> listed = new ArrayList<>();
        for (String o : origins) {
            Entry e = parse(o);
            if (e == null || "*".equals(e.host())) {
                throw new IllegalArgumentException("The allowed origin '" + o + "' is not of the form scheme://host, "
                        + "scheme://host:port or scheme://host:* (for example http://localhost:* or "
                        + "https://app.example.com).");
            }
            entries.add(e);
            listed.add(o);
        }
        return new AllowedOrigins(List.copyOf(entries), List.copyOf(listed));
    }

    /**
     * Whether a request with this {@code Origin} header may be served.
     *
     * @param origin the header's value
     * @return whether it is one of the allowed origins ({@code null}, the opaque origin, is not)
     */
    public boolean allows(String origin) {
        Entry o = parse(origin.strip());
        if (o == null || "*".equals(o.port()) || "*".equals(o.host())) {
            return false;
        }
        for (Entry e : entries) {
            if (e.scheme().equals(o.scheme()) && e.host().equals(o.host())
                    && ("*".equals(e.port()) || e.port().equals(o.port()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The entries, as given.
     *
     * @return the entries
     */
    public List<String> listed() {
        return listed;
    }

    /** {@code scheme://host[:port]}, the port empty when absent, or null when it is not of that form. */
    private static Entry parse(String s) {
        int sep = s.indexOf("://");
        if (sep <= 0) {
            return null;
        }
        String scheme = s.substring(0, sep).toLowerCase(Locale.ROOT);
        String rest = s.substring(sep + 3);
        if (!scheme.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '+' || c == '-' || c == '.')
                || rest.isEmpty() || rest.contains("/") || rest.contains("@") || rest.contains("?")
                || rest.contains("#")) {
            return null;
        }
        String host;
        String port = "";
        if (rest.startsWith("[")) {
            int close = rest.indexOf(']');
            if (close < 0) {
                return null;
            }
            host = rest.substring(0, close + 1);
            String after = rest.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    return null;
                }
                port = after.substring(1);
            }
        } else {
            int colon = rest.lastIndexOf(':');
            host = colon < 0 ? rest : rest.substring(0, colon);
            port = colon < 0 ? "" : rest.substring(colon + 1);
        }
        if (host.isEmpty() || (!port.isEmpty() && !"*".equals(port) && !port.chars().allMatch(Character::isDigit))
                || (rest.endsWith(":") && port.isEmpty())) {
            return null;
        }
        return new Entry(scheme, host.toLowerCase(Locale.ROOT), port);
    }
}
