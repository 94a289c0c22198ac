"""Pečeť's web application: rooms, seats, orders, websockets and pages (thin over ``engine``)."""
