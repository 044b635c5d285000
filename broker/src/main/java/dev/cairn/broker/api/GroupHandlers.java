package dev.cairn.broker.api;

/** What the group handlers share. */
final class GroupHandlers {
    private GroupHandlers() {
    }

    /**
     * The client's host as Kafka reports it in DescribeGroups ({@code /127.0.0.1}): the connection's remote
     * address without its port.
     */
    static String clientHost(RequestContext context) {
        String address = context.clientAddress();
        if (address == null) {
            return "";
        }
        int colon = address.lastIndexOf(':');
        return colon < 0 ? address : address.substring(0, colon);
    }
}
