package dev.cairn.broker.config;

import java.util.ArrayList;
import java.util.List;

/** One entry of {@code raft.voters}: {@code nodeId@host:port}, the Raft address of a metadata-group voter. */
public record RaftVoter(int nodeId, HostPort address) {

    public static List<RaftVoter> parseList(String text) {
        List<RaftVoter> voters = new ArrayList<>();
        for (String entry : text.split(",")) {
            String trimmed = entry.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int at = trimmed.indexOf('@');
            if (at <= 0) {
                throw new ConfigException("voter " + trimmed + " is not nodeId@host:port");
            }
            int nodeId;
            try {
                nodeId = Integer.parseInt(trimmed.substring(0, at));
            } catch (NumberFormatException e) {
                throw new ConfigException("voter " + trimmed + " has no numeric node id");
            }
            voters.add(new RaftVoter(nodeId, HostPort.parse(trimmed.substring(at + 1))));
        }
        return List.copyOf(voters);
    }

    @Override
    public String toString() {
        return nodeId + "@" + address;
    }
}
