"""A document shaped like Azure's network API (``arm-network`` 2016-06-01 of the APIs.guru
directory), written here: Swagger 2.0, 42 operations over network interfaces, security
groups, public addresses, load balancers, route tables and virtual networks.

Its definitions refer to each other the way Azure's do: an interface's IP configuration
names its subnet, public address, backend pools and NAT rules; a subnet names its security
group, route table and IP configurations; a security group lists its interfaces and subnets;
a pool lists the IP configurations behind it. Every path through that web of cycles inlines
another copy of the definitions on it, so the fully inlined response of ``GET
.../networkInterfaces`` passes the 50,000-node limit (the real document did, refused whole
since the hardening round), while the document itself holds about 1,400 schema nodes.
The property names, descriptions, enums and ``x-ms-*`` keys follow the real document.
"""

from __future__ import annotations

from typing import Any

__all__ = ["azure_network_document"]

Doc = dict[str, Any]
_DEFS = "#/definitions/"


def _s(text: str) -> Doc:
    return {"description": text, "type": "string"}


def _i(text: str) -> Doc:
    return {"description": text, "format": "int32", "type": "integer"}


def _b(text: str) -> Doc:
    return {"description": text, "type": "boolean"}


def _e(text: str, name: str, *values: str) -> Doc:
    return {
        "description": text,
        "enum": list(values),
        "type": "string",
        "x-ms-enum": {"modelAsString": True, "name": name},
    }


def _ref(name: str, text: str = "", **extra: Any) -> Doc:
    out: Doc = {"$ref": _DEFS + name, **extra}
    if text:
        out["description"] = text
    return out


def _many(name: str, text: str, **extra: Any) -> Doc:
    return {"description": text, "items": {"$ref": _DEFS + name}, "type": "array", **extra}


_STATE = _s("Gets provisioning state of the resource Updating/Deleting/Failed")
_GUID = _s("Gets or sets resource guid property of the resource")
_ALLOC = _e("Gets or sets PrivateIP allocation method", "IPAllocationMethod", "Static", "Dynamic")
_PROTOCOL = _e("Gets or sets the transport protocol", "TransportProtocol", "Udp", "Tcp")


def _child(description: str, properties: str) -> Doc:
    """A sub-resource (``allOf`` SubResource, ``etag``, ``name``, flattened properties)."""
    return {
        "allOf": [{"$ref": _DEFS + "SubResource"}],
        "description": description,
        "properties": {
            "etag": _s("A unique read-only string that changes whenever the resource is updated"),
            "name": _s(
                "Gets name of the resource that is unique within a resource group. This name "
                "can be used to access the resource"
            ),
            "properties": _ref(properties, **{"x-ms-client-flatten": True}),
        },
    }


def _resource(description: str, properties: str) -> Doc:
    """A top-level resource (``allOf`` Resource, ``etag``, flattened properties)."""
    return {
        "allOf": [{"$ref": _DEFS + "Resource"}],
        "description": description,
        "properties": {
            "etag": _s(
                "Gets a unique read-only string that changes whenever the resource is updated"
            ),
            "properties": _ref(properties, **{"x-ms-client-flatten": True}),
        },
    }


def _list(name: str) -> Doc:
    return {
        "description": f"Response for List{name} Api service call",
        "properties": {
            "nextLink": _s("Gets the URL to get the next set of results."),
            "value": _many(name, f"Gets a list of {name} resources"),
        },
    }


def _definitions() -> Doc:
    sub = "SubResource"
    defs: Doc = {
        "Resource": {
            "properties": {
                "id": _s("Resource Id"),
                "location": _s("Resource location"),
                "name": {"description": "Resource name", "readOnly": True, "type": "string"},
                "tags": {
                    "additionalProperties": {"type": "string"},
                    "description": "Resource tags",
                    "type": "object",
                },
                "type": {"description": "Resource type", "readOnly": True, "type": "string"},
            },
            "x-ms-azure-resource": True,
        },
        "SubResource": {"properties": {"id": _s("Resource Id")}, "x-ms-azure-resource": True},
        "NetworkInterface": _resource("A NetworkInterface in a resource group", "NIFormat"),
        "NIFormat": {
            "description": "NetworkInterface properties.",
            "properties": {
                "dnsSettings": _ref("NIDnsSettings", "Gets or sets DNS settings"),
                "enableIPForwarding": _b("Gets or sets whether IPForwarding is enabled"),
                "ipConfigurations": _many("NIIPConfiguration", "Gets or sets IPConfigurations"),
                "macAddress": _s("Gets the MAC address of the network interface"),
                "networkSecurityGroup": _ref("NetworkSecurityGroup", "The security group"),
                "primary": _b("Gets whether this is a primary NIC on a virtual machine"),
                "provisioningState": _STATE,
                "resourceGuid": _GUID,
                "virtualMachine": _ref(sub, "Gets or sets the reference of a VirtualMachine"),
            },
        },
        "NIDnsSettings": {
            "description": "Dns settings of a network interface",
            "properties": {
                "appliedDnsServers": {"items": {"type": "string"}, "type": "array"},
                "dnsServers": {"items": {"type": "string"}, "type": "array"},
                "internalDnsNameLabel": _s("Gets or sets the internal DNS name"),
                "internalDomainNameSuffix": _s("Gets or sets internal domain name suffix"),
                "internalFqdn": _s("Gets or sets the internal fqdn."),
            },
        },
        "NIIPConfiguration": _child("IPConfiguration in a NetworkInterface", "NIIPFormat"),
        "NIIPFormat": {
            "description": "Properties of IPConfiguration",
            "properties": {
                "applicationGatewayBackendAddressPools": _many(
                    "AppGatewayBackendAddressPool", "Gets or sets the application gateway pools"
                ),
                "loadBalancerBackendAddressPools": _many(
                    "BackendAddressPool", "Gets or sets the load balancer backend pools"
                ),
                "loadBalancerInboundNatRules": _many("InboundNatRule", "Gets or sets NAT rules"),
                "primary": _b("Gets whether this is a primary customer address on the NIC"),
                "privateIPAddress": {"type": "string"},
                "privateIPAddressVersion": _e("IPv4 or IPv6", "IPVersion", "IPv4", "IPv6"),
                "privateIPAllocationMethod": _ALLOC,
                "provisioningState": {"type": "string"},
                "publicIPAddress": _ref("PublicIPAddress"),
                "subnet": _ref("Subnet"),
            },
        },
        "AppGatewayBackendAddressPool": _child("Backend pool of application gateway", "AGPool"),
        "AGPool": {
            "properties": {
                "backendAddresses": _many("AGBackendAddress", "Backend addresses"),
                "backendIPConfigurations": _many("NIIPConfiguration", "Backend IP configurations"),
                "provisioningState": _STATE,
            }
        },
        "AGBackendAddress": {
            "properties": {"fqdn": _s("Dns name"), "ipAddress": _s("Ip address")},
        },
        "BackendAddressPool": _child("Pool of backend IP addresses", "PoolFormat"),
        "PoolFormat": {
            "properties": {
                "backendIPConfigurations": _many(
                    "NIIPConfiguration", "Gets collection of references to IPs", readOnly=True
                ),
                "loadBalancingRules": _many(sub, "Gets rules that use this pool", readOnly=True),
                "outboundNatRule": _ref(sub, "Gets outbound rules that use this pool"),
                "provisioningState": _STATE,
            }
        },
        "InboundNatRule": _child("Inbound NAT rule of the loadbalancer", "NatRuleFormat"),
        "NatRuleFormat": {
            "properties": {
                "backendIPConfiguration": _ref(
                    "NIIPConfiguration", "The backend IP", readOnly=True
                ),
                "backendPort": _i("Gets or sets a port used for internal connections"),
                "enableFloatingIP": _b("Configures a virtual machine's endpoint"),
                "frontendIPConfiguration": _ref(sub, "Gets or sets a frontend IP address"),
                "frontendPort": _i("Gets or sets the port for the external endpoint"),
                "idleTimeoutInMinutes": _i("Gets or sets the timeout for the Tcp connection"),
                "protocol": _PROTOCOL,
                "provisioningState": _STATE,
            }
        },
        "PublicIPAddress": _resource("PublicIPAddress resource", "PublicIPFormat"),
        "PublicIPFormat": {
            "description": "PublicIpAddress properties",
            "properties": {
                "dnsSettings": _ref("PublicIPDnsSettings", "Gets or sets the DNS record"),
                "idleTimeoutInMinutes": _i("Gets or sets the Idletimeout"),
                "ipAddress": {"type": "string"},
                "ipConfiguration": _ref("IPConfiguration", readOnly=True),
                "provisioningState": _STATE,
                "publicIPAddressVersion": _e("IPv4 or IPv6", "IPVersion", "IPv4", "IPv6"),
                "publicIPAllocationMethod": _ALLOC,
                "resourceGuid": _GUID,
            },
        },
        "PublicIPDnsSettings": {
            "properties": {
                "domainNameLabel": _s("Gets or sets the Domain name label"),
                "fqdn": _s("Gets the FQDN of the A DNS record"),
                "reverseFqdn": _s("Gets or Sets the Reverse FQDN"),
            }
        },
        "IPConfiguration": _child("IPConfiguration", "IPFormat"),
        "IPFormat": {
            "properties": {
                "privateIPAddress": _s("Gets or sets the privateIPAddress"),
                "privateIPAllocationMethod": _ALLOC,
                "provisioningState": _STATE,
                "publicIPAddress": _ref("PublicIPAddress", "The PublicIP resource"),
                "subnet": _ref("Subnet", "The subnet resource"),
            }
        },
        "Subnet": _child("Subnet in a VirtualNework resource", "SubnetFormat"),
        "SubnetFormat": {
            "properties": {
                "addressPrefix": _s("Gets or sets Address prefix for the subnet."),
                "ipConfigurations": _many("IPConfiguration", "IP configurations", readOnly=True),
                "networkSecurityGroup": _ref("NetworkSecurityGroup", "The security group"),
                "provisioningState": _STATE,
                "resourceNavigationLinks": _many("NavigationLink", "External resources"),
                "routeTable": _ref("RouteTable", "The route table"),
            }
        },
        "NavigationLink": _child("ResourceNavigationLink resource", "NavigationLinkFormat"),
        "NavigationLinkFormat": {
            "properties": {
                "link": _s("Link to the external resource"),
                "linkedResourceType": _s("Resource type of the linked resource"),
                "provisioningState": _STATE,
            }
        },
        "NetworkSecurityGroup": _resource("NetworkSecurityGroup resource", "NsgFormat"),
        "NsgFormat": {
            "properties": {
                "defaultSecurityRules": _many("SecurityRule", "Default security rules"),
                "networkInterfaces": _many("NetworkInterface", "Interfaces", readOnly=True),
                "provisioningState": _STATE,
                "resourceGuid": _GUID,
                "securityRules": _many("SecurityRule", "Security rules"),
                "subnets": _many("Subnet", "Gets collection of references to subnets"),
            }
        },
        "SecurityRule": _child("Network security rule", "RuleFormat"),
        "RuleFormat": {
            "properties": {
                "access": _e("Allowed or denied", "SecurityRuleAccess", "Allow", "Deny"),
                "description": _s("A description for this rule. Restricted to 140 chars."),
                "destinationAddressPrefix": _s("Destination address prefix"),
                "destinationPortRange": _s("Destination Port or Range"),
                "direction": _e("The direction", "SecurityRuleDirection", "Inbound", "Outbound"),
                "priority": _i("Gets or sets the priority of the rule"),
                "protocol": _e("Network protocol", "SecurityRuleProtocol", "Tcp", "Udp", "*"),
                "provisioningState": _STATE,
                "sourceAddressPrefix": _s("Source address prefix"),
                "sourcePortRange": _s("Source Port or Range"),
            },
            "required": ["protocol", "sourceAddressPrefix", "destinationAddressPrefix", "access"],
        },
        "RouteTable": _resource("RouteTable resource", "RouteTableFormat"),
        "RouteTableFormat": {
            "properties": {
                "provisioningState": _STATE,
                "routes": _many("Route", "Gets or sets Routes in a Route Table"),
                "subnets": _many("Subnet", "Gets collection of references to subnets"),
            }
        },
        "Route": _child("Route resource", "RouteFormat"),
        "RouteFormat": {
            "properties": {
                "addressPrefix": _s("The destination CIDR to which the route applies."),
                "nextHopIpAddress": _s("The IP address packets should be forwarded to."),
                "nextHopType": _e("Hop type", "RouteNextHopType", "VnetLocal", "Internet", "None"),
                "provisioningState": _STATE,
            },
            "required": ["nextHopType"],
        },
        "LoadBalancer": _resource("LoadBalancer resource", "LbFormat"),
        "LbFormat": {
            "properties": {
                "backendAddressPools": _many("BackendAddressPool", "Pools of backend addresses"),
                "frontendIPConfigurations": _many("FrontendIP", "Frontend IP addresses"),
                "inboundNatPools": _many("InboundNatPool", "Gets or sets inbound NAT pools"),
                "inboundNatRules": _many("InboundNatRule", "Gets or sets list of inbound rules"),
                "loadBalancingRules": _many("LbRule", "Gets or sets load balancing rules"),
                "outboundNatRules": _many("OutboundNatRule", "Gets or sets outbound NAT rules"),
                "probes": _many("Probe", "Gets or sets list of Load balancer probes"),
                "provisioningState": _STATE,
                "resourceGuid": _GUID,
            }
        },
        "FrontendIP": _child("Frontend IP address of the load balancer", "FrontendIPFormat"),
        "FrontendIPFormat": {
            "properties": {
                "inboundNatPools": _many(sub, "Inbound pools URIs", readOnly=True),
                "inboundNatRules": _many(sub, "Inbound rules URIs", readOnly=True),
                "loadBalancingRules": _many(sub, "Load balancing rules URIs", readOnly=True),
                "outboundNatRules": _many(sub, "Outbound rules URIs", readOnly=True),
                "privateIPAddress": _s("Gets or sets the privateIPAddress"),
                "privateIPAllocationMethod": _ALLOC,
                "provisioningState": _STATE,
                "publicIPAddress": _ref("PublicIPAddress", "The PublicIP resource"),
                "subnet": _ref("Subnet", "The subnet resource"),
            }
        },
        "InboundNatPool": _child("Inbound NAT pool of the load balancer", "NatPoolFormat"),
        "NatPoolFormat": {
            "properties": {
                "backendPort": _i("Gets or sets a port used for internal connections"),
                "frontendIPConfiguration": _ref(sub, "Gets or sets a frontend IP address"),
                "frontendPortRangeEnd": _i("Gets or sets the ending port range"),
                "frontendPortRangeStart": _i("Gets or sets the starting port range"),
                "protocol": _PROTOCOL,
                "provisioningState": _STATE,
            },
            "required": ["protocol", "frontendPortRangeStart", "frontendPortRangeEnd"],
        },
        "LbRule": _child("Rules of the load balancer", "LbRuleFormat"),
        "LbRuleFormat": {
            "properties": {
                "backendAddressPool": _ref(sub, "A reference to a pool of DIPs"),
                "backendPort": _i("Gets or sets a port used for internal connections"),
                "enableFloatingIP": _b("Configures a virtual machine's endpoint"),
                "frontendIPConfiguration": _ref(sub, "Gets or sets a frontend IP address"),
                "frontendPort": _i("Gets or sets the port for the external endpoint"),
                "idleTimeoutInMinutes": _i("Gets or sets the timeout for the Tcp connection"),
                "loadDistribution": _e("Policy", "LoadDistribution", "Default", "SourceIP"),
                "probe": _ref(sub, "The load balancer probe used by the rule"),
                "protocol": _PROTOCOL,
                "provisioningState": _STATE,
            },
            "required": ["protocol", "frontendPort"],
        },
        "OutboundNatRule": _child("Outbound NAT pool of the load balancer", "OutboundFormat"),
        "OutboundFormat": {
            "properties": {
                "allocatedOutboundPorts": _i("The number of outbound ports to be used for SNAT"),
                "backendAddressPool": _ref(sub, "A reference to a pool of DIPs"),
                "frontendIPConfigurations": _many(sub, "Frontend IP addresses"),
                "provisioningState": _STATE,
            },
            "required": ["backendAddressPool"],
        },
        "Probe": _child("Load balancer Probe", "ProbeFormat"),
        "ProbeFormat": {
            "properties": {
                "intervalInSeconds": _i("The interval, in seconds, between probes"),
                "loadBalancingRules": _many(sub, "Rules that use this probe", readOnly=True),
                "numberOfProbes": _i("The number of probes without a response"),
                "port": _i("Port for communicating the probe"),
                "protocol": _e("Protocol of the end point", "ProbeProtocol", "Http", "Tcp"),
                "provisioningState": _STATE,
                "requestPath": _s("The URI used for requesting health status from the VM"),
            },
            "required": ["protocol", "port"],
        },
        "VirtualNetwork": _resource("Virtual Network resource", "VnetFormat"),
        "VnetFormat": {
            "properties": {
                "VirtualNetworkPeerings": _many("VnetPeering", "Peerings in a VirtualNetwork"),
                "addressSpace": _ref("AddressSpace", "IP address ranges for subnets"),
                "dhcpOptions": _ref("DhcpOptions", "DNS servers available to VMs"),
                "provisioningState": _STATE,
                "resourceGuid": _GUID,
                "subnets": _many("Subnet", "Gets or sets list of subnets in a VirtualNetwork"),
            }
        },
        "AddressSpace": {
            "properties": {"addressPrefixes": {"items": {"type": "string"}, "type": "array"}}
        },
        "DhcpOptions": {
            "properties": {"dnsServers": {"items": {"type": "string"}, "type": "array"}}
        },
        "VnetPeering": _child("Peerings in a VirtualNework resource", "PeeringFormat"),
        "PeeringFormat": {
            "properties": {
                "allowForwardedTraffic": _b("Whether forwarded traffic is allowed"),
                "allowGatewayTransit": _b("Whether gateway links can be used"),
                "allowVirtualNetworkAccess": _b("Whether VMs can reach each other"),
                "peeringState": _e("Status", "PeeringState", "Initiated", "Connected"),
                "provisioningState": _STATE,
                "remoteVirtualNetwork": _ref(sub, "The remote virtual network"),
                "useRemoteGateways": _b("Whether remote gateways can be used"),
            }
        },
    }
    for name in (
        "NetworkInterface",
        "NetworkSecurityGroup",
        "PublicIPAddress",
        "LoadBalancer",
        "RouteTable",
        "VirtualNetwork",
        "Subnet",
        "SecurityRule",
        "Route",
    ):
        defs[f"{name}ListResult"] = _list(name)
    return defs


_GROUP = {
    "description": "The name of the resource group.",
    "in": "path",
    "name": "resourceGroupName",
    "required": True,
    "type": "string",
}
_COMMON = [
    {"$ref": "#/parameters/ApiVersionParameter"},
    {"$ref": "#/parameters/SubscriptionIdParameter"},
]


def _name(param: str, text: str) -> Doc:
    return {"description": text, "in": "path", "name": param, "required": True, "type": "string"}


def _ok(name: str, *codes: str) -> Doc:
    return {code: {"description": "", "schema": {"$ref": _DEFS + name}} for code in codes}


def _crud(tag: str, model: str, base: str, names: list[Doc]) -> Doc:
    """GET (list), and GET / PUT / DELETE of one, as Azure writes them."""
    item = base + "/{" + names[-1]["name"] + "}"
    params = [_GROUP, *names]
    return {
        base: {
            "get": {
                "operationId": f"{tag}_List",
                "parameters": [_GROUP, *names[:-1], *_COMMON],
                "responses": _ok(f"{model}ListResult", "200"),
                "x-ms-pageable": {"nextLinkName": "nextLink"},
            }
        },
        item: {
            "delete": {
                "operationId": f"{tag}_Delete",
                "parameters": [*params, *_COMMON],
                "responses": {"200": {"description": ""}, "204": {"description": ""}},
                "x-ms-long-running-operation": True,
            },
            "get": {
                "operationId": f"{tag}_Get",
                "parameters": [*params, *_COMMON],
                "responses": _ok(model, "200"),
            },
            "put": {
                "operationId": f"{tag}_CreateOrUpdate",
                "parameters": [
                    *params,
                    {
                        "description": f"Parameters supplied to the create/update {model}",
                        "in": "body",
                        "name": "parameters",
                        "required": True,
                        "schema": {"$ref": _DEFS + model},
                    },
                    *_COMMON,
                ],
                "responses": _ok(model, "200", "201"),
                "x-ms-long-running-operation": True,
            },
        },
    }


def azure_network_document() -> Doc:
    """The document (a fresh dict on every call)."""
    root = "/subscriptions/{subscriptionId}"
    group = root + "/resourceGroups/{resourceGroupName}/providers/Microsoft.Network"
    paths: Doc = {}
    tops = [  # in the real document's order: load balancers come first
        ("LoadBalancers", "LoadBalancer", "loadBalancers", "loadBalancerName"),
        ("NetworkInterfaces", "NetworkInterface", "networkInterfaces", "networkInterfaceName"),
        ("NetworkSecurityGroups", "NetworkSecurityGroup", "networkSecurityGroups", "nsgName"),
        ("PublicIPAddresses", "PublicIPAddress", "publicIPAddresses", "publicIpAddressName"),
        ("RouteTables", "RouteTable", "routeTables", "routeTableName"),
        ("VirtualNetworks", "VirtualNetwork", "virtualNetworks", "virtualNetworkName"),
    ]
    for tag, model, segment, param in tops:
        paths[f"{root}/providers/Microsoft.Network/{segment}"] = {
            "get": {
                "operationId": f"{tag}_ListAll",
                "parameters": list(_COMMON),
                "responses": _ok(f"{model}ListResult", "200"),
            }
        }
        paths.update(
            _crud(tag, model, f"{group}/{segment}", [_name(param, f"The name of the {model}.")])
        )
    children = [
        ("Subnets", "Subnet", "virtualNetworks", "virtualNetworkName", "subnets", "subnetName"),
        (
            "SecurityRules",
            "SecurityRule",
            "networkSecurityGroups",
            "nsgName",
            "securityRules",
            "securityRuleName",
        ),
        ("Routes", "Route", "routeTables", "routeTableName", "routes", "routeName"),
    ]
    for tag, model, parent, parent_param, segment, param in children:
        base = f"{group}/{parent}/{{{parent_param}}}/{segment}"
        names = [_name(parent_param, "The name of the parent."), _name(param, f"The {model}.")]
        paths.update(_crud(tag, model, base, names))
    return {
        "swagger": "2.0",
        "info": {
            "title": "NetworkManagementClient",
            "version": "2016-06-01",
            "description": "The Microsoft Azure Network management API provides a RESTful set of "
            "web services that interact with Microsoft Azure Networks service.",
        },
        "host": "management.azure.com",
        "schemes": ["https"],
        "consumes": ["application/json", "text/json"],
        "produces": ["application/json", "text/json"],
        "securityDefinitions": {
            "azure_auth": {
                "authorizationUrl": "https://login.microsoftonline.com/common/oauth2/authorize",
                "flow": "implicit",
                "scopes": {"user_impersonation": "impersonate your user account"},
                "type": "oauth2",
            }
        },
        "security": [{"azure_auth": ["user_impersonation"]}],
        "parameters": {
            "ApiVersionParameter": {
                "description": "Client Api Version.",
                "in": "query",
                "name": "api-version",
                "required": True,
                "type": "string",
            },
            "SubscriptionIdParameter": {
                "description": "Gets subscription credentials.",
                "in": "path",
                "name": "subscriptionId",
                "required": True,
                "type": "string",
            },
        },
        "paths": paths,
        "definitions": _definitions(),
    }
